package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Input is a file the plan was resolved from, with the SHA-256 of its
// bytes when planned (of every file under it, for a directory).
type Input struct {
	Path   string `json:"path"` // absolute
	What   string `json:"what"` // what it is to the plan: "benchmark file", "compose file", "mounted file" ...
	SHA256 string `json:"sha256"`
}

// inputBenchmark is what the HCL file is among a plan's inputs.
const inputBenchmark = "benchmark file"

// Format names a saved plan's layout; a file of another format is refused.
const Format = "gatewaybench plan 1"

// saved is a plan file: `runner plan --out FILE` writes it, `runner apply
// FILE` runs it.
type saved struct {
	Format string `json:"format"`
	Plan   *Plan  `json:"plan"`
}

// Save writes the plan, secrets and config contents included, for a later
// apply: readable by its owner alone, as the HCL's keys are.
// Its directory is made absolute, so it applies from any directory.
func (p *Plan) Save(path string) error {
	c := *p
	dir, err := filepath.Abs(p.Dir)
	if err != nil {
		return err
	}
	c.Dir = dir
	return atomicfile.WriteMode(path, 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(saved{Format: Format, Plan: &c})
	})
}

// IsFile says whether path holds a saved plan rather than an HCL file:
// a regular file (a FIFO or a device is never opened here) whose first
// non-blank byte opens a JSON object.
func IsFile(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	return bytes.HasPrefix(bytes.TrimSpace(head[:n]), []byte("{"))
}

// maxFile bounds a plan file read back (the suite's plan is about 3 MiB).
const maxFile = 256 << 20

// Open reads a saved plan back and checks that none of its inputs changed
// since it was made: a plan resolved from files that changed is not what
// they now say, and is refused with every file that differs named.
func Open(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s saved
	dec := json.NewDecoder(io.LimitReader(f, maxFile))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s is not a saved plan (runner plan --out writes one): %w", path, err)
	}
	if s.Format != Format || s.Plan == nil {
		return nil, fmt.Errorf("%s: format %q, this runner reads %q; plan again with this runner", path, s.Format, Format)
	}
	if err := CheckInputs(s.Plan.Inputs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s.Plan, nil
}

// CheckInputs hashes every input again and says which differ.
func CheckInputs(inputs []Input) error {
	var changed []string
	for _, in := range inputs {
		sum, err := hashPath(in.Path)
		switch {
		case err != nil:
			changed = append(changed, fmt.Sprintf("%s (%s): %v", in.Path, in.What, err))
		case sum != in.SHA256:
			changed = append(changed, fmt.Sprintf("%s (%s) changed since the plan was made", in.Path, in.What))
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("the plan is stale, plan again (runner plan --out):\n  %s", strings.Join(changed, "\n  "))
	}
	return nil
}

// inputs hashes each path, once each, in the order given.
func inputs(paths [][2]string) []Input {
	var out []Input
	for _, pw := range paths {
		abs, err := filepath.Abs(pw[0])
		if err != nil || slices.ContainsFunc(out, func(in Input) bool { return in.Path == abs }) {
			continue
		}
		sum, err := hashPath(abs)
		if err != nil {
			sum = "unreadable: " + err.Error()
		}
		out = append(out, Input{Path: abs, What: pw[1], SHA256: sum})
	}
	return out
}

// hashPath is the SHA-256 of a file's bytes, or of a directory's files:
// each one's path under it and bytes, in lexical order.
func hashPath(path string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if p != path {
			rel, _ := filepath.Rel(path, p)
			fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		}
		h.Write(b)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("no longer there")
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

// Masked is a copy of the plan as it is printed: secrets and the header
// values not known to be harmless masked, config files by their hash alone.
func (p *Plan) Masked() (*Plan, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m Plan
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	maskReq := func(r *Request) {
		if r != nil {
			r.APIKey, r.Headers = r.APIKey.masked(), r.Headers.masked()
		}
	}
	maskArm := func(a *Arm) {
		maskReq(a.Ready)
		for i := range a.Replicas {
			if c := a.Replicas[i].Container; c != nil {
				c.ClearContents()
			}
		}
		if a.Balancer != nil && a.Balancer.Container != nil {
			a.Balancer.Container.ClearContents()
		}
	}
	for i := range m.Arms {
		maskArm(&m.Arms[i])
	}
	for i := range m.Scenarios {
		s := &m.Scenarios[i]
		s.MockKey, s.Knobs.APIKey = s.MockKey.masked(), string(Secret(s.Knobs.APIKey).masked())
		for j := range s.Arms {
			maskArm(&s.Arms[j])
		}
		for j := range s.Runs {
			maskReq(&s.Runs[j].Request)
			maskReq(s.Runs[j].Background)
		}
	}
	return &m, nil
}

// SourceFile is the benchmark file as the run manifest names it: its path
// as given and its SHA-256 when the plan was made.
func (p *Plan) SourceFile() results.Source {
	for _, in := range p.Inputs {
		if in.What == inputBenchmark {
			return results.Source{Path: p.Source, SHA256: in.SHA256}
		}
	}
	return results.Source{Path: p.Source}
}
