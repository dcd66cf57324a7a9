package generator

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// BaseFile is the merge base of a service, beside gsgen.lock: the bytes
// gsgen last wrote for each file the lock lists, so that a later gsgen can
// merge its new version of a file with the user's edits three ways
// (gsgen upgrade).
//
// Why one compressed file rather than pristine copies or a bigger lock: a
// tree of copies would double the service and every `git status`; pristine
// bytes inside gsgen.lock would turn the lock, which people read in reviews,
// into base64. The lock stays the index (path, owner, sha256) and the store
// holds the bytes by their sha256, so the two cannot disagree: a blob whose
// hash the lock does not list is never read, and a file whose blob is
// missing (a service written before the store existed) simply has no base.
//
// Format: gzip (no name, no time, level baseLevel: the same files give the
// same bytes with one Go release; a release that changed compress/flate's
// output would change the bytes, never what they hold) of
//
//	gsgen base 1
//	version v0.26.0                 the gsgen that wrote it
//	<sha256> <size>                 then size bytes and a newline, per blob,
//	...                             in the order of the lock's paths
const BaseFile = servicedir.BaseFile

const baseHeader = "gsgen base 1"

// baseLevel is the store's compression level. Level 4 encodes the full
// preset's 566 KB in about half the time of the default (6), 8 ms against
// 15, for a store 3% larger (177 KB against 172): the base was the largest
// step of gsgen new. Any level reads back the same: ParseBase does not care.
const baseLevel = 4

// maxBase bounds the store, compressed on disk and expanded in memory: a
// service's text is a few hundred KiB.
const (
	maxBaseFile     = 16 << 20
	maxBaseExpanded = 64 << 20
)

// Base is a service's merge base: the gsgen version that wrote it and the
// bytes it wrote, by sha256.
type Base struct {
	Version string
	blobs   map[string][]byte
}

// Of returns the bytes gsgen last wrote for the lock entry e, if the store
// has them.
func (b *Base) Of(e servicedir.LockEntry) ([]byte, bool) {
	if b == nil {
		return nil, false
	}
	c, ok := b.blobs[e.Hash]
	return c, ok
}

// EncodeBase writes the store of the files lock lists, taking their bytes
// from content (by sha256); an entry without bytes is left out (its file has
// no base).
func EncodeBase(version string, lock servicedir.Lock, content map[string][]byte) []byte {
	var raw bytes.Buffer
	fmt.Fprintf(&raw, "%s\nversion %s\n", baseHeader, version)
	written := map[string]bool{}
	for _, p := range slices.Sorted(maps.Keys(lock)) {
		h := lock[p].Hash
		c, ok := content[h]
		if !ok || written[h] {
			continue
		}
		written[h] = true
		fmt.Fprintf(&raw, "%s %d\n", h, len(c))
		raw.Write(c)
		raw.WriteByte('\n')
	}
	return compressBase(raw.Bytes())
}

// lastBase is the store compressBase compressed last, by its bytes before
// compression. gsgen new encodes one store twice: Generate encodes the base
// of the files it rendered, and RecordNew encodes it again from the changes,
// which for a new directory hold the very same files. The gzip is the
// largest step of gsgen new after writing; the second time it is a compare.
var lastBase struct {
	sync.Mutex
	raw, out []byte
}

// compressBase is the gzip of a store's bytes, raw.
func compressBase(raw []byte) []byte {
	lastBase.Lock()
	defer lastBase.Unlock()
	if lastBase.out != nil && bytes.Equal(lastBase.raw, raw) {
		return bytes.Clone(lastBase.out) // the caller owns what it is given
	}
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, baseLevel) // the level is valid
	zw.Write(raw)                                 // writes into a buffer cannot fail
	zw.Close()
	lastBase.raw, lastBase.out = bytes.Clone(raw), bytes.Clone(out.Bytes())
	return out.Bytes()
}

// ParseBase reads a store. Anything but a store gsgen wrote is an
// *InputError: a base that lies would make a merge keep or drop the wrong
// lines.
func ParseBase(data []byte) (*Base, error) {
	corrupt := func(msg string) error {
		return &problem.InputError{Field: BaseFile, Msg: msg + ": gsgen.base is corrupt",
			Fix: "restore it from version control, or delete it: gsgen then treats the service as one written before it kept a base (an edited file whose gsgen version changed becomes a conflict, never an overwrite)"}
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, corrupt("not gzip")
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxBaseExpanded+1))
	if err != nil {
		return nil, corrupt(err.Error())
	}
	if len(raw) > maxBaseExpanded {
		return nil, corrupt(fmt.Sprintf("it expands to more than %d MiB", maxBaseExpanded>>20))
	}
	rest := raw
	line := func() (string, bool) {
		l, after, ok := bytes.Cut(rest, []byte("\n"))
		if ok {
			rest = after
		}
		return string(l), ok
	}
	if h, ok := line(); !ok || h != baseHeader {
		return nil, corrupt("no header")
	}
	v, ok := line()
	version, isVersion := strings.CutPrefix(v, "version ")
	if !ok || !isVersion || version == "" || len(version) > 64 {
		return nil, corrupt("no version line")
	}
	b := &Base{Version: version, blobs: map[string][]byte{}}
	for len(rest) > 0 {
		head, ok := line()
		f := strings.Fields(head)
		if !ok || len(f) != 2 || !servicedir.IsSHA256(f[0]) {
			return nil, corrupt("a blob has no hash and size")
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 || n >= len(rest) || rest[n] != '\n' {
			return nil, corrupt("a blob's size is wrong")
		}
		c := rest[:n:n]
		if servicedir.Hash(c) != f[0] {
			return nil, corrupt("a blob does not match its hash")
		}
		b.blobs[f[0]] = c
		rest = rest[n+1:]
	}
	return b, nil
}

// baseOf is what files give the store and the lock: the bytes of every file
// the lock lists, by hash.
func baseOf(files render.Rendered) map[string][]byte {
	out := map[string][]byte{}
	for _, f := range files {
		if servicedir.InLock(f.File()) {
			out[servicedir.Hash(f.Content)] = f.Content
		}
	}
	return out
}

// record sets the lock and the base among cs to what the run leaves: for
// each file the lock lists, what gsgen last wrote into it. A file of the
// user's that the run keeps as it is keeps the entry of the run that last
// wrote it, unless it already is gsgen's new version: that is the base a
// later merge must start from, or gsgen's changes since would be lost.
func (s *Service) record(cs servicedir.Changes) { recordChanges(cs, s.Lock, s.Base) }

// RecordNew sets the lock and the base among the changes of gsgen new to
// what it leaves. With --force, a file of the user's found in DIR is kept,
// not written: gsgen never wrote it, so neither lists it, and a later
// upgrade leaves it alone ("yours, and gsgen did not write it") instead of
// merging gsgen's stub into it as if the user's file had grown from it.
func RecordNew(cs servicedir.Changes) { recordChanges(cs, servicedir.Lock{}, nil) }

// recordChanges is record against the lock and the base before the run.
// The lock lists the files gsgen created for the user, so a kept file of
// the user's that it does not list is one gsgen never wrote, and stays
// unlisted; only a service of a gsgen before the lock (before is nil) has
// its kept files recorded as gsgen's, as that gsgen wrote them.
func recordChanges(cs servicedir.Changes, before servicedir.Lock, base *Base) {
	lock, content := servicedir.Lock{}, map[string][]byte{}
	for _, c := range cs {
		if !servicedir.InLock(c.File) || c.Action == servicedir.Delete || c.Action == servicedir.Leave {
			continue
		}
		old, known := before[c.Path]
		if c.Action == servicedir.Keep && !known && before != nil {
			continue
		}
		wrote := c.Gsgens()
		e := servicedir.LockEntry{Owner: c.Owner, Hash: servicedir.Hash(wrote)}
		content[e.Hash] = wrote
		if known && c.Action == servicedir.Keep && !bytes.Equal(c.OnDisk, wrote) {
			e.Hash = old.Hash
			if b, ok := base.Of(old); ok {
				content[old.Hash] = b
			}
		}
		lock[c.Path] = e
	}
	for i := range cs {
		switch cs[i].Path {
		case servicedir.LockFile:
			cs[i].SetContent(lock.Bytes())
		case BaseFile:
			cs[i].SetContent(EncodeBase(Version, lock, content))
		}
	}
}
