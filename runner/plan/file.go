package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Input is a file the plan was resolved from, with the SHA-256 of its
// bytes when planned (of every file under it, for a directory).
type Input struct {
	Path   string           `json:"path"` // absolute
	Kind   config.InputKind `json:"kind"`
	What   string           `json:"what"` // what it is to the plan, in words: "compose file of nginx", "mounted in portkey" ...
	SHA256 string           `json:"sha256"`
}

// Format names a saved plan's layout; a file of another format is refused.
// Format 2 records how the plan was made (From), so apply derives it again;
// format 3 its seed (Plan.Seed), so the orders derived again are its own;
// format 4 each input's kind (Input.Kind) beside its description.
const Format = "gatewaybench plan 4"

// saved is a plan file: `runner plan --out FILE` writes it, `runner apply
// FILE` runs it.
type saved struct {
	Format string     `json:"format"`
	From   Derivation `json:"from"`
	Plan   *Plan      `json:"plan"`
}

// Derivation is how a saved plan was made: the benchmark file and the
// flags that shaped its plan. Apply makes the plan again from them, through
// the same checks as `runner apply FILE`, and runs the saved plan only when
// the two are the same: a plan file is reviewed input, never a way around
// what the HCL path refuses.
type Derivation struct {
	File      string `json:"file"` // absolute
	Gateways  string `json:"gateways,omitempty"`
	Scenarios string `json:"scenarios,omitempty"`
	Results   string `json:"results,omitempty"` // absolute
	Quick     bool   `json:"quick,omitempty"`
	Seed      uint64 `json:"seed"`
}

// Save writes the plan, secrets and config contents included, for a later
// apply, with how it was made: readable by its owner alone, as the HCL's
// keys are. Its directory is made absolute, so it applies from any
// directory.
func (p *Plan) Save(path string, from Derivation) error {
	c, err := p.absolute()
	if err != nil {
		return err
	}
	return atomicfile.WriteMode(path, 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(saved{Format: Format, From: from, Plan: c})
	})
}

func (p *Plan) absolute() (*Plan, error) {
	c := *p
	dir, err := filepath.Abs(p.Dir)
	if err != nil {
		return nil, err
	}
	c.Dir = dir
	return &c, nil
}

// Differs says where a saved plan first differs from the plan its
// derivation gives now ("" when they are the same), as a path into the
// plan's JSON; values are not printed, since a plan holds credentials.
func (p *Plan) Differs(derived *Plan) (string, error) {
	var a, b any
	for _, x := range []struct {
		p   *Plan
		out *any
	}{{p, &a}, {derived, &b}} {
		c, err := x.p.absolute()
		if err != nil {
			return "", err
		}
		raw, err := json.Marshal(c)
		if err != nil {
			return "", err
		}
		// Numbers compared as written: as float64, a seed edited by one
		// above 2^53 would read the same.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(x.out); err != nil {
			return "", err
		}
	}
	return firstDifference("plan", a, b), nil
}

// firstDifference walks two decoded JSON values in order and returns the
// path of the first place they differ.
func firstDifference(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return path
		}
		keys := slices.Sorted(maps.Keys(x))
		for k := range y {
			if _, in := x[k]; !in {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if d := firstDifference(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return path
		}
		for i := range min(len(x), len(y)) {
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s (%d items saved, %d derived)", path, len(x), len(y))
		}
		return ""
	}
	if a != b {
		return path
	}
	return ""
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

// Open reads a saved plan back, with how it was made, and checks that none
// of its inputs changed since: a plan resolved from files that changed is
// not what they now say, and is refused with every file that differs
// named. The caller then derives the plan again (Differs).
func Open(path string) (*Plan, Derivation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Derivation{}, err
	}
	defer f.Close()
	var s saved
	dec := json.NewDecoder(io.LimitReader(f, maxFile))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, Derivation{}, fmt.Errorf("%s is not a saved plan (runner plan --out writes one): %w", path, err)
	}
	if s.Format != Format || s.Plan == nil {
		return nil, Derivation{}, fmt.Errorf("%s: format %q, this runner reads %q; plan again with this runner", path, s.Format, Format)
	}
	if !filepath.IsAbs(s.From.File) || len(s.Plan.Inputs) == 0 {
		return nil, Derivation{}, fmt.Errorf("%s: it does not say the benchmark file it was made from, or lists no inputs; plan again (runner plan --out)", path)
	}
	if err := CheckInputs(s.Plan.Inputs); err != nil {
		return nil, Derivation{}, fmt.Errorf("%s: %w", path, err)
	}
	return s.Plan, s.From, nil
}

// CheckInputs hashes every input again and says which differ.
func CheckInputs(inputs []Input) error {
	var changed []string
	for _, in := range inputs {
		sum, err := config.HashPath(in.Path)
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

// inputs are the files cfg and its projects name (config.InputPaths),
// once each, in that order, with the hashes taken when the configuration
// was resolved: no file is read here.
func inputs(cfg *config.Config, projects map[string]*types.Project) []Input {
	var out []Input
	for _, pw := range config.InputPaths(cfg, projects) {
		abs, err := filepath.Abs(pw.Path)
		if err != nil || slices.ContainsFunc(out, func(in Input) bool { return in.Path == abs }) {
			continue
		}
		sum := "unreadable: not read when the configuration was resolved"
		if f, ok := cfg.Files[abs]; ok && f.Err != nil {
			sum = "unreadable: " + f.Err.Error()
		} else if ok {
			sum = f.SHA256
		}
		out = append(out, Input{Path: abs, Kind: pw.Kind, What: pw.What, SHA256: sum})
	}
	return out
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
		if in.Kind == config.InputBenchmark {
			return results.Source{Path: p.Source, SHA256: in.SHA256}
		}
	}
	return results.Source{Path: p.Source}
}
