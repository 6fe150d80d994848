package ghclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"unicode/utf8"

	"github.com/google/go-github/v66/github"
)

// TreeEntry is one entry of a git tree.
type TreeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"` // blob, tree or commit
	SHA  string `json:"sha"`
	Size int64  `json:"size,omitempty"`
}

// Tree is a commit's whole tree, listed recursively.
type Tree struct {
	SHA       string      `json:"sha"`
	Entries   []TreeEntry `json:"entries"`
	Truncated bool        `json:"truncated,omitempty"`
}

// GetTree lists a tree recursively; sha may be a commit or a tree. GitHub
// cuts a recursive listing above 100,000 entries or 7 MB and says so in
// Truncated; ListTree then lists one directory at a time.
func (r *Repo) GetTree(ctx context.Context, sha string) (Tree, error) {
	return r.tree(ctx, sha, true)
}

// ListTree lists a tree's direct entries, as paths relative to it.
func (r *Repo) ListTree(ctx context.Context, sha string) (Tree, error) {
	return r.tree(ctx, sha, false)
}

func (r *Repo) tree(ctx context.Context, sha string, recursive bool) (Tree, error) {
	var t Tree
	err := r.c.do(ctx, "get tree "+short(sha)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		gt, resp, err := r.gh.Git.GetTree(ctx, r.owner, r.name, sha, recursive)
		if err != nil {
			return resp, err
		}
		t = Tree{SHA: gt.GetSHA(), Truncated: gt.GetTruncated()}
		for _, e := range gt.Entries {
			t.Entries = append(t.Entries, TreeEntry{Path: e.GetPath(), Mode: e.GetMode(), Type: e.GetType(), SHA: e.GetSHA(), Size: int64(e.GetSize())})
		}
		return resp, nil
	})
	return t, err
}

// GetBlob returns a blob's content.
func (r *Repo) GetBlob(ctx context.Context, sha string) ([]byte, error) {
	var data []byte
	err := r.c.do(ctx, "get blob "+short(sha)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		b, resp, err := r.gh.Git.GetBlobRaw(ctx, r.owner, r.name, sha)
		data = b
		return resp, err
	})
	return data, err
}

// BranchHead returns the commit a branch points at.
func (r *Repo) BranchHead(ctx context.Context, branch string) (string, error) {
	var sha string
	err := r.c.do(ctx, "get branch "+branch+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		ref, resp, err := r.gh.Git.GetRef(ctx, r.owner, r.name, "heads/"+branch)
		if err != nil {
			return resp, err
		}
		sha = ref.GetObject().GetSHA()
		return resp, nil
	})
	return sha, err
}

// Commit is a git commit's tree and parents.
type Commit struct {
	SHA     string
	Tree    string
	Parents []string
	Message string
}

// GetCommit reads a git commit.
func (r *Repo) GetCommit(ctx context.Context, sha string) (Commit, error) {
	var c Commit
	err := r.c.do(ctx, "get commit "+short(sha)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		gc, resp, err := r.gh.Git.GetCommit(ctx, r.owner, r.name, sha)
		if err != nil {
			return resp, err
		}
		c = Commit{SHA: gc.GetSHA(), Tree: gc.GetTree().GetSHA(), Message: gc.GetMessage()}
		for _, p := range gc.Parents {
			c.Parents = append(c.Parents, p.GetSHA())
		}
		return resp, nil
	})
	return c, err
}

// TreeFile is a file to write into a new tree, or to delete from it.
type TreeFile struct {
	Path    string
	Content []byte
	Mode    string // default "100644"
	Delete  bool
}

// CreateTree writes a tree: base with files replaced, added or deleted.
// Text goes inline; binary or empty content goes through a blob.
func (r *Repo) CreateTree(ctx context.Context, base string, files []TreeFile) (string, error) {
	entries := make([]*github.TreeEntry, 0, len(files))
	for _, f := range files {
		mode := f.Mode
		if mode == "" {
			mode = "100644"
		}
		e := &github.TreeEntry{Path: github.String(f.Path), Mode: github.String(mode), Type: github.String("blob")}
		switch {
		case f.Delete:
			// Neither sha nor content: go-github sends "sha": null, which
			// removes the path.
		case len(f.Content) > 0 && isText(f.Content):
			e.Content = github.String(string(f.Content))
		default:
			sha, err := r.createBlob(ctx, f.Content)
			if err != nil {
				return "", err
			}
			e.SHA = github.String(sha)
		}
		entries = append(entries, e)
	}
	var sha string
	// Creating the same tree twice gives the same object: safe to repeat.
	err := r.c.do(ctx, "create tree on "+short(base)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		t, resp, err := r.gh.Git.CreateTree(ctx, r.owner, r.name, base, entries)
		if err != nil {
			return resp, err
		}
		sha = t.GetSHA()
		return resp, nil
	})
	return sha, err
}

func (r *Repo) createBlob(ctx context.Context, content []byte) (string, error) {
	var sha string
	enc := base64.StdEncoding.EncodeToString(content)
	err := r.c.do(ctx, "create blob in "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		b, resp, err := r.gh.Git.CreateBlob(ctx, r.owner, r.name, &github.Blob{Content: github.String(enc), Encoding: github.String("base64")})
		if err != nil {
			return resp, err
		}
		sha = b.GetSHA()
		return resp, nil
	})
	return sha, err
}

// CreateCommit writes a commit of tree on parents. It is not repeated after
// an unknown outcome: a second commit would differ by its time (a dangling
// one is harmless, but the caller decides).
func (r *Repo) CreateCommit(ctx context.Context, message, tree string, parents []string) (string, error) {
	c := &github.Commit{Message: github.String(message), Tree: &github.Tree{SHA: github.String(tree)}}
	for _, p := range parents {
		c.Parents = append(c.Parents, &github.Commit{SHA: github.String(p)})
	}
	var sha string
	err := r.c.do(ctx, "create commit in "+r.FullName(), once, func(ctx context.Context) (*github.Response, error) {
		out, resp, err := r.gh.Git.CreateCommit(ctx, r.owner, r.name, c, nil)
		if err != nil {
			return resp, err
		}
		sha = out.GetSHA()
		return resp, nil
	})
	return sha, err
}

// CreateBranch creates refs/heads/branch at sha; an existing branch gives
// ErrUnprocessable.
func (r *Repo) CreateBranch(ctx context.Context, branch, sha string) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	return r.c.do(ctx, "create branch "+branch+" of "+r.FullName(), once, func(ctx context.Context) (*github.Response, error) {
		_, resp, err := r.gh.Git.CreateRef(ctx, r.owner, r.name, ref)
		return resp, err
	})
}

// MoveBranch points a branch at sha, forcing when the move is not a fast
// forward. Moving it twice to the same commit is harmless.
func (r *Repo) MoveBranch(ctx context.Context, branch, sha string, force bool) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	return r.c.do(ctx, "move branch "+branch+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		_, resp, err := r.gh.Git.UpdateRef(ctx, r.owner, r.name, ref, force)
		return resp, err
	})
}

// DeleteBranch deletes a branch; one already gone is not an error.
func (r *Repo) DeleteBranch(ctx context.Context, branch string) error {
	err := r.c.do(ctx, "delete branch "+branch+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		return r.gh.Git.DeleteRef(ctx, r.owner, r.name, "refs/heads/"+branch)
	})
	if errors.Is(err, ErrUnprocessable) || errors.Is(err, ErrNotFound) {
		return nil // GitHub answers 422 "Reference does not exist"
	}
	return err
}

// isText reports content that can go inline in a tree entry: valid UTF-8
// without NUL bytes.
func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// short abbreviates an object name for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
