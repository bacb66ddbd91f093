package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Shard is one driver's share of a load point that several drivers offer
// together (docs/scale.md, "Several drivers"). In an open loop every driver
// walks the same schedule (rate, arrival law, seed) and sends arrivals k
// with k mod Of == Index, so together they send exactly the arrivals one
// driver would; in a closed loop each driver has its own connections.
// Workers are numbered from FirstWorker, so every request's message stays
// unique across drivers.
type Shard struct {
	Index       int `json:"index"`
	Of          int `json:"of"` // 0 or 1: the driver is alone
	FirstWorker int `json:"first_worker"`
}

// Split divides cfg among n drivers that start together: connections as
// evenly as possible (a driver left with none is dropped), and in an open
// loop every n-th arrival to each with the in-flight cap divided (rounded
// up). n <= 1 returns cfg alone.
func Split(cfg Config, n int) []Config {
	if n <= 1 {
		return []Config{cfg}
	}
	var out []Config
	first := 0
	for i := range n {
		c := cfg
		if cfg.Rate > 0 {
			c.Conns = (cfg.Conns + n - 1) / n
			c.Shard = Shard{Index: i, Of: n, FirstWorker: first}
		} else {
			c.Conns = cfg.Conns / n
			if i < cfg.Conns%n {
				c.Conns++
			}
			if c.Conns == 0 {
				continue
			}
			c.Shard = Shard{Index: i, Of: n, FirstWorker: first}
		}
		first += c.Conns
		out = append(out, c)
	}
	return out
}

// Job is a driver's share of a run, as a driver in a container reads it.
type Job struct {
	Config Config `json:"config"`
	// Session is the profile's text when Config runs a session.
	Session json.RawMessage `json:"session,omitempty"`
}

// Load makes the job's Config ready to run: its session parsed.
func (j *Job) Load() (Config, error) {
	cfg := j.Config
	if len(j.Session) > 0 {
		s, err := ParseSession(j.Session, "the job's session")
		if err != nil {
			return Config{}, err
		}
		cfg.Session = s
	}
	return cfg, nil
}

// RunJob runs a job as a driver in a container does: the job's JSON in,
// the encoded result out.
func RunJob(ctx, abort context.Context, job []byte, out io.Writer) error {
	var j Job
	if err := json.Unmarshal(job, &j); err != nil {
		return fmt.Errorf("the job: %w", err)
	}
	cfg, err := j.Load()
	if err != nil {
		return err
	}
	cfg.Abort = abort
	res, err := Run(ctx, cfg)
	if err != nil {
		return err
	}
	return res.Encode(out)
}

// wire is a Result as it travels between processes: its histograms in
// HdrHistogram's compressed V2 encoding, which keeps every bucket's count.
type wire struct {
	Result
	Histograms map[string]string `json:"histograms"`
}

func (r *Result) histograms() map[string]**hdrhistogram.Histogram {
	return map[string]**hdrhistogram.Histogram{
		"latency": &r.Latency, "service": &r.Service, "ttfb": &r.TTFB, "ttft": &r.TTFT,
		"itl": &r.ITL, "lead": &r.Lead, "pacer_lag": &r.PacerLag, "send_lag": &r.SendLag,
		"first_failed": &r.FirstFailed, "first_ok": &r.FirstOK, "reported": &r.Reported,
	}
}

// Encode writes r for another process to read with DecodeResult.
func (r *Result) Encode(w io.Writer) error {
	out := wire{Result: *r, Histograms: map[string]string{}}
	for name, h := range r.histograms() {
		b, err := (*h).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return fmt.Errorf("encode the %s histogram: %w", name, err)
		}
		out.Histograms[name] = string(b)
	}
	return json.NewEncoder(w).Encode(&out)
}

// DecodeResult reads what Encode wrote; every histogram must be there.
func DecodeResult(rd io.Reader) (*Result, error) {
	var in wire
	if err := json.NewDecoder(rd).Decode(&in); err != nil {
		return nil, fmt.Errorf("a driver's result: %w", err)
	}
	r := in.Result
	for name, h := range r.histograms() {
		enc, ok := in.Histograms[name]
		if !ok {
			return nil, fmt.Errorf("a driver's result has no %s histogram", name)
		}
		d, err := hdrhistogram.Decode([]byte(enc))
		if err != nil {
			return nil, fmt.Errorf("a driver's %s histogram: %w", name, err)
		}
		*h = d
	}
	return &r, nil
}

// Merge pools the results of drivers that offered one load point together
// (cfg is the whole point's configuration): counts add up, histograms
// merge bucket by bucket, so a percentile of the merged result is the
// percentile of all samples, never an average of the drivers' percentiles;
// driver CPU adds up over the shared window. The verdict is drawn again
// from the pooled figures.
func Merge(cfg Config, parts ...*Result) *Result {
	r := newResult(cfg)
	for _, p := range parts {
		r.add(p)
	}
	r.Drivers = len(parts)
	r.finish(cfg)
	return r
}
