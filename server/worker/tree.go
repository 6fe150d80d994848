package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// maxBlobBytes bounds one repository file read for a diagnosis; the harness
// model refuses larger files anyway.
const maxBlobBytes = 4 << 20

// commitTree returns a commit's tree listing, from the cache or GitHub.
func (w *Worker) commitTree(ctx context.Context, gh *ghclient.Repo, repoID int64, sha string) (ghclient.Tree, error) {
	key := fmt.Sprintf("tree:%d:%s", repoID, sha)
	if e, err := w.st.GetCacheEntry(ctx, key); err == nil {
		var t ghclient.Tree
		if json.Unmarshal(e.Body, &t) == nil {
			return t, nil
		}
	} else if !isNotFound(err) {
		return ghclient.Tree{}, err
	}
	t, err := gh.GetTree(ctx, sha)
	if err != nil {
		return ghclient.Tree{}, err
	}
	body, err := json.Marshal(t)
	if err != nil {
		return ghclient.Tree{}, fmt.Errorf("encode tree of %s: %w", sha, err)
	}
	if err := w.st.PutCacheEntry(ctx, store.CacheEntry{Key: key, Body: body}); err != nil {
		return ghclient.Tree{}, err
	}
	return t, nil
}

// blob returns a blob's content, from the cache or GitHub.
func (w *Worker) blob(ctx context.Context, gh *ghclient.Repo, repoID int64, sha string) ([]byte, error) {
	key := fmt.Sprintf("blob:%d:%s", repoID, sha)
	if e, err := w.st.GetCacheEntry(ctx, key); err == nil {
		return e.Body, nil
	} else if !isNotFound(err) {
		return nil, err
	}
	data, err := gh.GetBlob(ctx, sha)
	if err != nil {
		return nil, err
	}
	if err := w.st.PutCacheEntry(ctx, store.CacheEntry{Key: key, Body: data}); err != nil {
		return nil, err
	}
	return data, nil
}

// treeFS is a repository tree at one commit as an fs.FS whose files are
// downloaded when first opened (from the blob cache when it has them), so a
// diagnosis reads only the harness files it needs. Directory listings and
// sizes come from the tree listing and cost nothing. Downloads are bounded
// in number and size; a download that fails for another reason than a
// missing object is kept in Err, so the caller can retry the whole job
// rather than diagnose from a partial tree.
type treeFS struct {
	fetch func(sha string) ([]byte, error)

	// smu guards the listing, which grows when a truncated one is
	// completed; it is taken before mu, never after.
	smu    sync.Mutex
	files  map[string]ghclient.TreeEntry
	dirs   map[string][]ghclient.TreeEntry // direct children, by name
	dirSHA map[string]string               // each directory's tree
	// A truncated listing (GitHub cuts a recursive one above 100,000
	// entries or 7 MB) is completed directory by directory along the
	// paths the diagnosis asks for: list lists one tree's direct entries,
	// loaded marks the directories listed so, listings counts them.
	list      func(sha string) ([]ghclient.TreeEntry, error)
	truncated bool
	loaded    map[string]bool
	listings  int

	mu      sync.Mutex
	budget  int
	fetched map[string][]byte
	err     error
}

// maxListings bounds the directory listings that complete one truncated
// tree.
const maxListings = 64

// newTreeFS indexes a tree listing.
func newTreeFS(t ghclient.Tree, budget int, fetch func(sha string) ([]byte, error)) *treeFS {
	f := &treeFS{files: map[string]ghclient.TreeEntry{}, dirs: map[string][]ghclient.TreeEntry{".": nil},
		dirSHA: map[string]string{".": t.SHA}, loaded: map[string]bool{}, truncated: t.Truncated,
		fetch: fetch, budget: budget, fetched: map[string][]byte{}}
	for _, e := range t.Entries {
		f.add(e)
	}
	return f
}

// completeWith lets a truncated listing be completed with list, a
// non-recursive listing of one tree.
func (f *treeFS) completeWith(list func(sha string) ([]ghclient.TreeEntry, error)) *treeFS {
	f.list = list
	return f
}

// add indexes one entry, once, keeping its directory's list in order.
// Callers hold smu (or own f).
func (f *treeFS) add(e ghclient.TreeEntry) {
	if !fs.ValidPath(e.Path) || e.Path == "." {
		return
	}
	switch e.Type {
	case "tree":
		if _, ok := f.dirs[e.Path]; ok {
			return
		}
		f.dirs[e.Path] = nil // an empty directory still exists
		f.dirSHA[e.Path] = e.SHA
	case "blob":
		if _, ok := f.files[e.Path]; ok {
			return
		}
		f.files[e.Path] = e
	default:
		return // submodules
	}
	parent := path.Dir(e.Path)
	list := append(f.dirs[parent], e)
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	f.dirs[parent] = list
}

// complete lists, in a truncated listing, the directories from the root
// down to name (name itself when it is a directory) that are not listed
// yet. Callers hold smu.
func (f *treeFS) complete(name string) {
	if !f.truncated || f.list == nil {
		return
	}
	chain := []string{"."}
	if name != "." {
		parts := strings.Split(name, "/")
		for i := range parts {
			chain = append(chain, strings.Join(parts[:i+1], "/"))
		}
	}
	for _, d := range chain {
		if f.loaded[d] {
			continue
		}
		sha, ok := f.dirSHA[d]
		if !ok || f.listings >= maxListings {
			return // not a directory, or the bound is reached
		}
		f.listings++
		entries, err := f.list(sha)
		if err != nil {
			f.mu.Lock()
			if !errors.Is(err, ghclient.ErrNotFound) && f.err == nil {
				f.err = fmt.Errorf("list %s: %w", d, err)
			}
			f.mu.Unlock()
			return
		}
		f.loaded[d] = true
		for _, e := range entries {
			if d != "." {
				e.Path = d + "/" + e.Path
			}
			f.add(e)
		}
	}
}

// file finds a file's entry, completing a truncated listing on a miss.
func (f *treeFS) file(name string) (ghclient.TreeEntry, bool) {
	f.smu.Lock()
	defer f.smu.Unlock()
	e, ok := f.files[name]
	if !ok {
		f.complete(name)
		e, ok = f.files[name]
	}
	return e, ok
}

// dir lists a directory; in a truncated listing it is listed first.
func (f *treeFS) dir(name string) ([]ghclient.TreeEntry, bool) {
	f.smu.Lock()
	defer f.smu.Unlock()
	if _, isFile := f.files[name]; !isFile && !f.loaded[name] {
		f.complete(name)
	}
	list, ok := f.dirs[name]
	return append([]ghclient.TreeEntry(nil), list...), ok
}

// lookup finds a file or a directory (as a "tree" entry).
func (f *treeFS) lookup(name string) (ghclient.TreeEntry, bool) {
	if e, ok := f.file(name); ok {
		return e, true
	}
	if _, ok := f.dir(name); ok {
		f.smu.Lock()
		defer f.smu.Unlock()
		return ghclient.TreeEntry{Path: name, Type: "tree", Mode: "040000", SHA: f.dirSHA[name]}, true
	}
	return ghclient.TreeEntry{}, false
}

// Err returns the first download failure that was not a missing object.
func (f *treeFS) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Open opens a file or directory.
func (f *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if _, isFile := f.file(name); !isFile {
		if list, ok := f.dir(name); ok {
			return &dirFile{info: dirInfo(name), entries: dirEntries(list)}, nil
		}
	}
	data, e, err := f.read(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{info: fileInfo(e), r: bytes.NewReader(data)}, nil
}

// ReadFile reads a whole file.
func (f *treeFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	data, _, err := f.read(name)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return append([]byte(nil), data...), nil
}

// Stat describes a file or directory without downloading it.
func (f *treeFS) Stat(name string) (fs.FileInfo, error) {
	e, ok := f.lookup(name)
	switch {
	case !ok:
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	case e.Type == "tree":
		return dirInfo(name), nil
	}
	return fileInfo(e), nil
}

// ReadDir lists a directory without downloading anything.
func (f *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	list, ok := f.dir(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return dirEntries(list), nil
}

// read returns a file's content, downloading it once.
func (f *treeFS) read(name string) ([]byte, ghclient.TreeEntry, error) {
	e, ok := f.file(name)
	switch {
	case !ok:
		return nil, e, fs.ErrNotExist
	case e.Mode == "120000":
		return nil, e, errors.New("symbolic links are not followed")
	case e.Size > maxBlobBytes:
		return nil, e, fmt.Errorf("file of %d bytes is above the %d-byte bound", e.Size, maxBlobBytes)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.fetched[e.SHA]; ok {
		return data, e, nil
	}
	if f.budget <= 0 {
		return nil, e, errors.New("download budget of the diagnosis spent")
	}
	f.budget--
	data, err := f.fetch(e.SHA)
	if err != nil {
		if !errors.Is(err, ghclient.ErrNotFound) && f.err == nil {
			f.err = fmt.Errorf("read %s: %w", name, err)
		}
		return nil, e, err
	}
	f.fetched[e.SHA] = data
	return data, e, nil
}

// dirEntries turns tree entries into directory entries.
func dirEntries(list []ghclient.TreeEntry) []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(list))
	for _, e := range list {
		var info fs.FileInfo = fileInfo(e)
		if e.Type == "tree" {
			info = dirInfo(e.Path)
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	return out
}

// entryInfo is the fs.FileInfo of a tree entry.
type entryInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (i entryInfo) Name() string       { return i.name }
func (i entryInfo) Size() int64        { return i.size }
func (i entryInfo) Mode() fs.FileMode  { return i.mode }
func (i entryInfo) ModTime() time.Time { return time.Time{} }
func (i entryInfo) IsDir() bool        { return i.mode.IsDir() }
func (i entryInfo) Sys() any           { return nil }

func fileInfo(e ghclient.TreeEntry) entryInfo {
	mode := fs.FileMode(0o644)
	switch e.Mode {
	case "100755":
		mode = 0o755
	case "120000":
		mode = fs.ModeSymlink | 0o777
	}
	return entryInfo{name: path.Base(e.Path), size: e.Size, mode: mode}
}

func dirInfo(name string) entryInfo {
	return entryInfo{name: path.Base(name), mode: fs.ModeDir | 0o755}
}

// memFile is an open file of a treeFS.
type memFile struct {
	info entryInfo
	r    *bytes.Reader
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Read(p []byte) (int, error) { return m.r.Read(p) }
func (m *memFile) Close() error               { return nil }

// dirFile is an open directory of a treeFS.
type dirFile struct {
	info    entryInfo
	entries []fs.DirEntry
	pos     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir lists the directory, n entries at a time (n <= 0: all).
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.pos:]
	if n <= 0 {
		d.pos = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.pos += n
	return rest[:n], nil
}

// TreeFS is a repository tree at one commit as an fs.FS (with ReadFile,
// Stat and ReadDir) whose files are downloaded when first read, at most
// budget of them; Err reports the first download that failed for another
// reason than a missing object. polylane capture reads a repository
// through it exactly as a diagnosis does.
type TreeFS struct{ *treeFS }

// NewTreeFS indexes a tree listing; fetch downloads a blob by object name.
func NewTreeFS(t ghclient.Tree, budget int, fetch func(sha string) ([]byte, error)) TreeFS {
	return TreeFS{newTreeFS(t, budget, fetch)}
}
