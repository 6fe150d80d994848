package causal

// Mechanisms of port conflicts.

var ruleAddressInUse = rule{ID: "port-conflict/address-in-use", Category: PortConflict, Catalogue: 27, Wide: true,
	Cause: res(`(?i)address already in use`, `\bEADDRINUSE\b`, `port is already allocated`, `(?i)Only one usage of each socket address`, `Unable to listen on port \d+`),
	// The API server's refusal of a Service's NodePort is not a local bind
	// (see ruleNodePortAllocated).
	Not:      res(`nodePort: Invalid value`),
	Producer: roleEmitter, Fix: fixFreePort,
	Summary: "{emitter_desc} could not bind its port because something else already held it: '{cause_short}'{cause_cite}. {port_note}",
	Values:  map[string]summaryValue{"port_note": valuePortNote}}

func valuePortNote(x *explainer) string { return portNote(x.em.Node) }
