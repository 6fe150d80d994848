package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/impact"
)

// production is the "Production impact" section: the headline, the
// summary, the deploy edges, what is affected and what was checked and is
// not. It is left out when there is no patch and no assessment.
func (r *renderer) production(b *strings.Builder) {
	im := r.d.Impact
	if r.d.Patch == nil && im == nil {
		return
	}
	b.WriteString("#### Production impact\n\n")
	if im == nil {
		b.WriteString("Polylane did not assess whether the changed files reach anything deployed. Check the deploy paths (images, charts, manifests, releases) before merging.\n\n")
		return
	}
	switch {
	case im.CIOnly:
		b.WriteString("**CI-only change: nothing that is deployed is touched.**\n\n")
	case len(im.Affected) > 0:
		b.WriteString("**This change reaches deployed artifacts:** " + r.codeList(im.Affected) + ".\n\n")
	}
	r.credentials(b, im.Credentials)
	if im.Summary != "" {
		b.WriteString(r.p(im.Summary) + "\n\n")
	}
	r.edges(b, im.DeployEdges)
	r.bullets(b, fmt.Sprintf("Affected (%d)", len(im.Affected)), im.Affected)
	r.bullets(b, fmt.Sprintf("Checked and not affected (%d)", len(im.CheckedNotAffected)), im.CheckedNotAffected)
	r.changedFiles(b, im.Files)
	r.bullets(b, "Counted as deployed, though no workflow here publishes it", im.Assumed)
	r.bullets(b, "Also found, not deployed", im.Notes)
}

// credentials says what the patch hands a credential to, and where it is
// sent: such a change is never CI-only.
func (r *renderer) credentials(b *strings.Builder, cs []impact.Credential) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("**Not a CI-only change: the patch passes a credential.** Check who receives it before merging:\n\n")
	left := r.each(len(cs), func(i int) {
		c := cs[i]
		b.WriteString("- " + r.c(c.File) + ": " + r.p(c.Exposure) + "\n")
	})
	more(b, left)
	b.WriteString("\n")
}

// edges lists the repository's deploy edges.
func (r *renderer) edges(b *strings.Builder, es []impact.Edge) {
	if len(es) == 0 {
		b.WriteString("The repository has no deploy edge that Polylane recognises (no published image, chart, manifest or release).\n\n")
		return
	}
	fmt.Fprintf(b, "Deploy %s of the repository (%d):\n\n", plural(len(es), "edge", "edges"), len(es))
	left := r.each(len(es), func(i int) {
		e := es[i]
		fmt.Fprintf(b, "- %s (%s) from %s", r.c(e.Artifact), r.t(e.Kind), r.c(e.Source))
		if e.Via != "" {
			b.WriteString(", published by " + r.fileRef(e.Via, e.Line))
			if e.Job != "" {
				b.WriteString(" job " + r.c(e.Job))
			}
		}
		b.WriteString("\n")
	})
	more(b, left)
	b.WriteString("\n")
}

// changedFiles says per changed file what it is and where it runs.
func (r *renderer) changedFiles(b *strings.Builder, fs []impact.FileVerdict) {
	if len(fs) == 0 {
		return
	}
	b.WriteString("Changed files:\n\n")
	left := r.each(len(fs), func(i int) {
		f := fs[i]
		b.WriteString("- " + r.c(f.Path))
		if f.Role != "" {
			b.WriteString(": " + r.p(f.Role))
		}
		if len(f.RunsIn) > 0 {
			b.WriteString("; runs in " + r.textList(f.RunsIn))
		}
		b.WriteString("\n")
	})
	more(b, left)
	b.WriteString("\n")
}

// observability is the "Observability" section.
func (r *renderer) observability(b *strings.Builder) {
	im := r.d.Impact
	if im == nil {
		return
	}
	b.WriteString("#### Observability\n\n")
	if len(im.Observability) == 0 {
		b.WriteString("Polylane gathered no notes on where the changed step shows up; its log is the record.\n\n")
		return
	}
	left := r.each(len(im.Observability), func(i int) {
		b.WriteString("- " + r.p(im.Observability[i]) + "\n")
	})
	more(b, left)
	b.WriteString("\n")
}

// bullets renders a titled list of prose entries; nothing when empty.
func (r *renderer) bullets(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + ":\n\n")
	left := r.each(len(items), func(i int) {
		b.WriteString("- " + r.p(items[i]) + "\n")
	})
	more(b, left)
	b.WriteString("\n")
}

// textList renders at most the list limit of values as escaped text.
func (r *renderer) textList(vs []string) string {
	var parts []string
	left := r.each(len(vs), func(i int) { parts = append(parts, r.t(vs[i])) })
	if left > 0 {
		parts = append(parts, fmt.Sprintf("%d more", left))
	}
	return strings.Join(parts, "; ")
}

// more closes a list with the count of entries left out.
func more(b *strings.Builder, left int) {
	if left > 0 {
		fmt.Fprintf(b, "- … and %d more\n", left)
	}
}
