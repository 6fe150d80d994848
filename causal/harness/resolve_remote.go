package harness

import (
	"net/url"
	"strings"
)

// pipedOwnScript returns the repository path of the script a shell reads
// from a pipe when the command before it downloads one of this
// repository's own files: `curl -sSL
// https://raw.githubusercontent.com/OWNER/REPO/REF/PATH | sh` (or
// github.com/OWNER/REPO/raw/REF/PATH). Installers are tested this way, and
// what runs is the script in the tree, at the branch the URL names. A
// script of another repository is not followed: its text is not here.
func (rs *resolver) pipedOwnScript(sh *Node) string {
	if rs.repo.name == "" || sh.Cmd == nil || sh.Cmd.PipeIndex == 0 || sh.Parent == nil {
		return ""
	}
	for _, c := range sh.Parent.Children {
		if c.Cmd == nil || c.Cmd.Script != sh.Cmd.Script || c.Cmd.PipeLen != sh.Cmd.PipeLen || c.Cmd.PipeIndex != sh.Cmd.PipeIndex-1 ||
			c.Cmd.Line > sh.Cmd.Line || c.Cmd.EndLine < sh.Cmd.Line-3 {
			continue
		}
		if t := c.Tool(); t != "curl" && t != "wget" {
			return ""
		}
		for _, a := range c.EffectiveArgs()[1:] {
			if p := ownRawPath(c.ExpandVars(strings.Trim(a, `"'`)), rs.repo.name); p != "" {
				return p
			}
		}
		return ""
	}
	return ""
}

// ownRawPath returns PATH of a raw-file URL of the repository full (owner/
// name), or "".
func ownRawPath(raw, full string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return ""
	}
	seg := strings.Split(strings.Trim(u.Path, "/"), "/")
	var owner, name string
	var rest []string
	switch strings.ToLower(u.Host) {
	case "raw.githubusercontent.com":
		if len(seg) < 4 {
			return ""
		}
		owner, name, rest = seg[0], seg[1], seg[3:]
	case "github.com":
		if len(seg) < 5 || seg[2] != "raw" {
			return ""
		}
		owner, name, rest = seg[0], seg[1], seg[4:]
	default:
		return ""
	}
	if !strings.EqualFold(owner+"/"+name, full) {
		return ""
	}
	for _, r := range rest {
		if r == ".." || r == "." || r == "" {
			return "" // a client resolves these before GitHub sees the path
		}
	}
	p := cleanPath(strings.Join(rest, "/"))
	if p == "" || strings.HasPrefix(p, "..") {
		return ""
	}
	return p
}
