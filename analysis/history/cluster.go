package history

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of the fuzzy merge. Classes are compared, never occurrences, and each
// exact class is checked precisely against at most maxPreciseChecks candidates
// among at most maxCandidates existing classes of its step, so the cost grows
// with the number of distinct signatures, not with the number of failures.
const (
	maxPreciseChecks = 8
	maxCandidates    = 256
	// fuzzyFraction is the edit distance, relative to the mean masked length,
	// below which two signatures of the same step and family are one class.
	fuzzyFraction = 0.10
	// maxMembers and maxEndpoints bound what a class lists of its signatures
	// and endpoints.
	maxMembers   = 20
	maxEndpoints = 8
)

// groupKey is what clustering never crosses: the job's base name and the step.
type groupKey struct {
	job, step string
}

func keyOf(o *Occurrence) groupKey { return groupKey{job: o.JobBase, step: o.Step.Name} }

// exactClass gathers the occurrences with one signature in one group.
type exactClass struct {
	key   groupKey
	sig   string
	occs  []*Occurrence
	runs  map[int64]bool
	fp    fingerprint
	last  time.Time
	first time.Time
}

// mergedClass is a class under construction: exact classes merged together.
type mergedClass struct {
	key     groupKey
	rep     *exactClass
	members []*exactClass
	fp      fingerprint // the representative's, with endpoints widened by merges
}

// Cluster groups failure occurrences into classes. Classes never span two
// group keys (job base name and step name). Within a key, occurrences with the
// same signature form one exact class; exact classes are then merged when
// their fingerprints match (see compatible). Occurrences that are Unknown or
// Cancelled must be filtered out by the caller, or carry a synthetic signature.
//
// previous are the classes of an earlier diagnosis of the same workflow: a
// class that shares runs or its signature with a previous class keeps that
// class's id, so ids are stable while the window slides. New ids are derived
// from the step and the class's fingerprint.
//
// Each class lists its runs newest first; Count is len(Runs). ContainsTrigger
// and Pattern are left for Annotate.
func Cluster(occs []Occurrence, previous []Class) []Class {
	exact := exactClasses(occs)
	byKey := map[groupKey][]*exactClass{}
	var keys []groupKey
	for _, e := range exact {
		if _, ok := byKey[e.key]; !ok {
			keys = append(keys, e.key)
		}
		byKey[e.key] = append(byKey[e.key], e)
	}
	var merged []*mergedClass
	for _, k := range keys {
		merged = append(merged, mergeGroup(byKey[k])...)
	}
	classes := make([]Class, 0, len(merged))
	for _, m := range merged {
		classes = append(classes, m.class())
	}
	assignIDs(classes, merged, previous)
	slices.SortStableFunc(classes, compareClasses)
	return classes
}

// exactClasses groups occurrences by (group key, signature), largest first.
func exactClasses(occs []Occurrence) []*exactClass {
	index := map[groupKey]map[string]*exactClass{}
	var out []*exactClass
	for i := range occs {
		o := &occs[i]
		k := keyOf(o)
		sigs := index[k]
		if sigs == nil {
			sigs = map[string]*exactClass{}
			index[k] = sigs
		}
		e := sigs[o.Signature]
		if e == nil {
			e = &exactClass{key: k, sig: o.Signature, runs: map[int64]bool{}, fp: fingerprintOf(o), first: o.CreatedAt, last: o.CreatedAt}
			sigs[o.Signature] = e
			out = append(out, e)
		} else {
			fp := fingerprintOf(o)
			e.fp.endpoints = dedupe(append(e.fp.endpoints, fp.endpoints...))
			if e.fp.family == "" {
				e.fp.family = fp.family
			}
		}
		e.occs = append(e.occs, o)
		e.runs[o.RunID] = true
		if o.CreatedAt.Before(e.first) {
			e.first = o.CreatedAt
		}
		if o.CreatedAt.After(e.last) {
			e.last = o.CreatedAt
		}
	}
	slices.SortStableFunc(out, func(a, b *exactClass) int {
		return cmp.Or(cmp.Compare(len(b.runs), len(a.runs)), b.last.Compare(a.last), cmp.Compare(a.sig, b.sig))
	})
	return out
}

// mergeGroup merges the exact classes of one group key, largest first: each
// joins the first compatible merged class, or starts a new one.
func mergeGroup(exact []*exactClass) []*mergedClass {
	var out []*mergedClass
	for _, e := range exact {
		if m := findMatch(out, e); m != nil {
			m.members = append(m.members, e)
			m.fp.endpoints = dedupe(append(slices.Clone(m.fp.endpoints), e.fp.endpoints...))
			continue
		}
		out = append(out, &mergedClass{key: e.key, rep: e, members: []*exactClass{e}, fp: e.fp})
	}
	return out
}

// findMatch returns the merged class e belongs to, or nil. Environmental
// families match on family and endpoints. Other families go through the
// n-gram lower bound first, then an exact bounded edit distance on the masked
// text for the few best candidates.
func findMatch(classes []*mergedClass, e *exactClass) *mergedClass {
	type candidate struct {
		m     *mergedClass
		bound int
		limit int
	}
	var cands []candidate
	for i, m := range classes {
		if i >= maxCandidates {
			break
		}
		if m.fp.family != e.fp.family {
			continue
		}
		if environmental(e.fp.family) {
			if !endpointBound(e.fp.family) || endpointsCompatible(m.fp.endpoints, e.fp.endpoints, e.fp.family == FamilyRateLimit) {
				return m
			}
			continue
		}
		limit := fuzzyLimit(m.fp.text, e.fp.text)
		if b := editLowerBound(&m.fp.grams, &e.fp.grams); b <= limit {
			cands = append(cands, candidate{m, b, limit})
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(a.bound, b.bound) })
	for i, c := range cands {
		if i >= maxPreciseChecks {
			break
		}
		if boundedEditDistance(c.m.fp.text, e.fp.text, c.limit) <= c.limit {
			return c.m
		}
	}
	return nil
}

// fuzzyLimit is the largest edit distance at which two masked texts are one
// class: fuzzyFraction of their mean length, at least 1.
func fuzzyLimit(a, b string) int {
	return max(1, int(fuzzyFraction*float64(len(a)+len(b))/2))
}

// class turns a merged class into its contract form (without id, trigger
// and pattern).
func (m *mergedClass) class() Class {
	runs := map[int64]time.Time{}
	var sha string
	var first, last time.Time
	for _, e := range m.members {
		for _, o := range e.occs {
			runs[o.RunID] = o.CreatedAt
			if first.IsZero() || o.CreatedAt.Before(first) {
				first, sha = o.CreatedAt, o.HeadSHA
			}
			if o.CreatedAt.After(last) {
				last = o.CreatedAt
			}
		}
	}
	ids := make([]int64, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int { // newest first
		return cmp.Or(runs[b].Compare(runs[a]), cmp.Compare(b, a))
	})
	members := make([]string, 0, min(len(m.members), maxMembers))
	var wordings []Wording
	for _, e := range m.members[:min(len(m.members), maxMembers)] {
		members = append(members, e.sig)
		if len(m.members) > 1 {
			wordings = append(wordings, Wording{Signature: e.sig, Runs: len(e.runs)})
		}
	}
	endpoints := m.fp.endpoints[:min(len(m.fp.endpoints), maxEndpoints)]
	return Class{
		Step: m.key.step, Job: m.key.job, Signature: m.rep.sig,
		Count: len(ids), Runs: ids, FirstSeen: first, LastSeen: last,
		Family: m.fp.family, Endpoints: endpoints, Members: members, Wordings: wordings, FirstSHA: sha,
	}
}

// compareClasses orders classes by most runs, then most recent, then step.
func compareClasses(a, b Class) int {
	return cmp.Or(cmp.Compare(b.Count, a.Count), b.LastSeen.Compare(a.LastSeen),
		cmp.Compare(a.Step, b.Step), cmp.Compare(a.Job, b.Job), cmp.Compare(a.ID, b.ID))
}

// assignIDs gives every class an id: the id of the previous class it matches
// best (shared runs first, then signature), else one derived from its step and
// fingerprint. Ids are unique within the result.
func assignIDs(classes []Class, merged []*mergedClass, previous []Class) {
	used := map[string]bool{}
	order := make([]int, len(classes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(classes[b].Count, classes[a].Count) })
	for _, i := range order {
		if id := matchPrevious(&classes[i], merged[i], previous, used); id != "" {
			classes[i].ID = id
			used[id] = true
		}
	}
	for _, i := range order {
		if classes[i].ID != "" {
			continue
		}
		identity := merged[i].fp.identity()
		id := derivedID(classes[i].Step, identity)
		for n := 2; used[id]; n++ {
			id = derivedID(classes[i].Step, identity+"#"+strconv.Itoa(n))
		}
		classes[i].ID = id
		used[id] = true
	}
}

// matchPrevious finds the previous class of the same step (and job) that
// shares the most runs with c, or failing that has one of c's signatures or a
// compatible fingerprint.
func matchPrevious(c *Class, m *mergedClass, previous []Class, used map[string]bool) string {
	runs := map[int64]bool{}
	for _, id := range c.Runs {
		runs[id] = true
	}
	best, bestShared := "", 0
	bySig := ""
	for _, p := range previous {
		if p.ID == "" || used[p.ID] || p.Step != c.Step || p.Job != c.Job {
			continue
		}
		shared := 0
		for _, id := range p.Runs {
			if runs[id] {
				shared++
			}
		}
		if shared > bestShared {
			best, bestShared = p.ID, shared
		}
		if bySig == "" && previousMatches(p, m) {
			bySig = p.ID
		}
	}
	if best != "" {
		return best
	}
	return bySig
}

// previousMatches reports whether a previous class has one of m's signatures,
// or a fingerprint m would have merged with.
func previousMatches(p Class, m *mergedClass) bool {
	sigs := append([]string{p.Signature}, p.Members...)
	for _, e := range m.members {
		if slices.Contains(sigs, e.sig) {
			return true
		}
	}
	fp := fingerprint{family: p.Family, endpoints: p.Endpoints, text: maskText(p.Signature)}
	fp.grams = ngramCounts(fp.text)
	probe := &exactClass{fp: fp}
	return findMatch([]*mergedClass{m}, probe) != nil
}

// identity is the part of a fingerprint a new class id is derived from: the
// family and first endpoint for environmental classes (their wording varies),
// the masked text otherwise.
func (fp fingerprint) identity() string {
	if environmental(fp.family) && !endpointBound(fp.family) {
		return fp.family
	}
	if environmental(fp.family) {
		ep := ""
		if len(fp.endpoints) > 0 {
			ep = fp.endpoints[0]
		}
		return fp.family + " " + ep
	}
	return fp.family + " " + fp.text
}

// derivedID builds a readable id: a slug of the step and a short hash.
func derivedID(step, identity string) string {
	sum := sha256.Sum256([]byte(step + "\n" + identity))
	slug := slugify(step, 32)
	if slug == "" {
		slug = "run"
	}
	return slug + "-" + hex.EncodeToString(sum[:5])
}

// slugify lower-cases s, keeps letters and digits, joins words with '-' and
// cuts at n bytes on a word boundary when it can.
func slugify(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c < 128 && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > n {
		out = out[:n]
		if i := strings.LastIndexByte(out, '-'); i > n/2 {
			out = out[:i]
		}
	}
	return strings.Trim(out, "-")
}
