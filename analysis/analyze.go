package analysis

import (
	"fmt"
	"io"
)

// Analyze reads one CI job log (GitHub Actions raw job log, `gh run view --log`
// output, or a plain Travis or Jenkins log) in a single streaming pass and says
// why the job failed: ranked lines (the cause first, then context), a
// normalised signature and its id, the failing step when markers or opts.Steps
// allow, and the exit code. Memory stays bounded whatever the log size.
func Analyze(r io.Reader, opts Options) (*Result, error) {
	sc := NewScanner(r, opts)
	z := newLocalizer(opts.Baseline)
	for sc.Scan() {
		z.observe(sc.n, sc.clean, sc.line.Kind, sc.header, len(sc.steps.spans)-1)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("analyse log: %w", err)
	}
	spans := sc.steps.spans
	rk := z.rank(sc.n, spans)
	res := &Result{Lines: []Line{}, TotalLines: sc.n, Steps: append([]StepSpan(nil), spans...)}
	if rk.region.span >= 0 {
		sp := spans[rk.region.span]
		step := sp.Step
		res.Step = &step
		res.StepLines = &LineRange{First: sp.First, Last: sp.Last}
	}
	if e := rk.region.exit; e != nil {
		code := e.code
		res.ExitCode, res.ExitLine = &code, e.n
	}
	if rk.cause.n == 0 {
		return res, nil
	}
	res.Lines = append(res.Lines, Line{N: rk.cause.n, Text: rk.cause.text, Role: RoleCause})
	if rk.named.n != 0 {
		// the line that names the failing test states the cause with it
		res.Lines = append(res.Lines, Line{N: rk.named.n, Text: rk.named.text, Role: RoleCause})
	}
	for _, l := range rk.context {
		res.Lines = append(res.Lines, Line{N: l.n, Text: l.text, Role: RoleContext})
	}
	res.Test = rk.test
	res.Command, res.CommandLine = rk.cmd, rk.cmdLine
	res.redactRetained()
	// the signature is built from the redacted cause, so that a token that
	// changes with every run neither leaks nor splits the class
	res.Signature = testSignature(res.Test, signatureText(res.Lines[0].Text))
	res.SignatureID = SignatureID(res.Signature)
	res.Rule = rk.cause.feat.class.String()
	res.ErrorKind = errorKind(rk.cause.text)
	res.Endpoint = endpoint(rk.cause.text)
	if res.ErrorKind == "" {
		for _, l := range rk.context {
			if k := errorKind(l.text); k != "" && l.feat.score >= anchorScore {
				res.ErrorKind = k
				break
			}
		}
	}
	return res, nil
}
