package causal

// Mechanisms of locks held by another process: dpkg, Terraform state, a binary still being written.

var ruleDpkgLock = rule{ID: "ordering/dpkg-lock", Category: Ordering, Catalogue: 30, Wide: true,
	Cause:    res(`Could not get lock /var/lib/dpkg/lock`, `Unable to acquire the dpkg frontend lock`, `Could not get lock /var/lib/apt/lists/lock`),
	Producer: roleEmitter, Fix: fixAptLock,
	Summary: "{emitter_desc} ran while another apt process (usually unattended-upgrades on a fresh machine) held the package lock: '{cause_short}'{cause_cite}. apt does not wait for the lock by default."}

var ruleTerraformStateLock = rule{ID: "ordering/terraform-state-lock", Category: Ordering, Catalogue: 23,
	Cause:    res(`Error acquiring the state lock`, `ConditionalCheckFailedException`),
	Producer: roleEmitter, Fix: fixStateLock,
	Summary: "{emitter_desc} could not take the state lock because another run held it: '{cause_short}'{cause_cite}. Terraform gives up at once unless told to wait."}

var ruleTextFileBusy = rule{ID: "ordering/text-file-busy", Category: Ordering, Catalogue: 34,
	Cause:    res(`(?i)text file busy`, `\bETXTBSY\b`),
	Producer: roleEmitter, Fix: fixRetryExec,
	Summary: "{emitter_desc} ran a binary that was still open for writing: '{cause_short}'{cause_cite}. The write and the exec race."}
