// Gateway images, obtained (built, loaded or pulled) before any stack
// starts: by apply first, and by `runner build` alone.

package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// image is a service's image on the engine that runs it, obtained once per
// run for each key (an arm, or its balancer): by buildImages, before any
// stack starts. A build says how long the last one took on this machine
// (buildTimes), and records its own.
func (r *execution) image(ctx context.Context, key, engine string, svc *stack.Service) stack.Image {
	if img, ok := r.images[key]; ok {
		return img
	}
	e := r.mgr(engine).Engine
	if info, err := e.Image(ctx, svc.Image); err == nil && !info.Found && svc.Build != nil {
		last, bound := "no earlier build on this machine", time.Duration(0)
		if d, ok := readBuildTimes()[svc.Image]; ok {
			last, bound = "the last one here took "+d.Round(time.Second).String(), d
		}
		r.o.Progress.Start(fmt.Sprintf("%s: building image %s (%s)", key, svc.Image, last), bound)
	}
	img := stack.EnsureImage(ctx, e, svc, map[string]string{stack.LabelBuiltBy: r.runID}, r.donor(engine))
	if img.Source == stack.SourceBuilt {
		took := img.Prepare + img.Build
		r.o.Progress.Logf("built image %s for %s in %s (prepare %s, image build %s)", img.Ref, key,
			took.Round(time.Second), img.Prepare.Round(time.Second), img.Build.Round(time.Second))
		writeBuildTime(img.Ref, took)
	}
	r.images[key] = img
	return img
}

// buildImages obtains every gateway image the plan's scenarios run before
// any stack starts, so no started stack idles through a build and no cold
// start is measured while one holds the cores (litellm-rs's cargo build
// takes some 20 minutes here). It says first what it will build and about
// how long that takes here, then what each image is. A quick look builds
// none that takes longer than QuickBuildMax: those arms are not measured,
// each said on one line with the command that builds its image.
// Interrupted (loadCtx done), it starts no further build: the one under
// way finishes unless hardCtx ends it too.
func (r *execution) buildImages(loadCtx, hardCtx context.Context) {
	ctx := hardCtx
	engine := r.o.Plan.Layout.Gateway.Engine
	began, built := time.Now(), 0
	todo := r.imagesToObtain()
	r.sayBuilds(ctx, engine, todo)
	for i, t := range todo {
		if _, done := r.images[t.key]; done {
			continue
		}
		if loadCtx.Err() != nil {
			r.o.Progress.Logf("interrupted: %d image(s) left unobtained (%s)", len(todo)-i, keysOf(todo[i:]))
			break
		}
		svc := *t.svc
		img := r.image(ctx, t.key, engine, &svc)
		switch {
		case img.Unavailable != "":
			why, _, _ := strings.Cut(img.Unavailable, "\n")
			r.o.Progress.Logf("%s: image %s unavailable: %s", t.key, img.Ref, why)
		case img.Source == stack.SourceBuilt:
			built++
		default:
			r.o.Progress.Logf("%s: image %s (%s, %.1f MiB)", t.key, img.Ref, img.Source, measure.MiB(uint64(img.Size)))
		}
	}
	if built > 0 {
		r.o.Progress.Logf("%d gateway image(s) built in %s, before any stack started", built, time.Since(began).Round(time.Second))
	}
}

func keysOf(todo []toObtain) string {
	keys := make([]string, len(todo))
	for i, t := range todo {
		keys[i] = t.key
	}
	return strings.Join(keys, ", ")
}

// QuickBuildMax is the longest image build a quick look waits for: the
// last build of that image on this machine, or else the time its HCL block
// declares (build_time).
const QuickBuildMax = time.Minute

// toObtain is a gateway image a run needs: the arm (or balancer) it is
// for, its service and the build time its HCL block declares.
type toObtain struct {
	key      string
	svc      *stack.Service
	declared time.Duration
}

// imagesToObtain lists the images of the arms the plan's scenarios run,
// once each, in plan order.
func (r *execution) imagesToObtain() []toObtain {
	var out []toObtain
	seen := map[string]bool{}
	add := func(key string, c *stack.Service, declared time.Duration) {
		if c != nil && !seen[key] {
			seen[key] = true
			out = append(out, toObtain{key, c, declared})
		}
	}
	for i := range r.o.Plan.Scenarios {
		sc := &r.o.Plan.Scenarios[i]
		if sc.NotRun != "" {
			continue
		}
		for j := range sc.Arms {
			pa := &sc.Arms[j]
			if pa.Hosted || len(pa.Replicas) == 0 {
				continue
			}
			add(pa.Name, pa.Replicas[0].Container, pa.BuildTime.D())
			if b := pa.Balancer; b != nil {
				add(b.Project, b.Container, 0)
			}
		}
	}
	return out
}

// sayBuilds says which images are to be built and about how long that
// takes here; in a quick look it sets aside those that take longer than
// QuickBuildMax, as unavailable with the command that builds them.
func (r *execution) sayBuilds(ctx context.Context, engine string, todo []toObtain) {
	e := r.mgr(engine).Engine
	times := readBuildTimes()
	var names []string
	var total time.Duration
	refs := map[string]bool{}
	for _, t := range todo {
		info, err := e.Image(ctx, t.svc.Image)
		if err != nil || info.Found || t.svc.Build == nil || refs[t.svc.Image] {
			continue
		}
		est, known := times[t.svc.Image]
		if !known && t.declared > 0 {
			est, known = t.declared, true
		}
		about := "time not known"
		if known {
			about = "about " + est.Round(time.Second).String()
		}
		if r.o.Plan.QuickLook && known && est > QuickBuildMax {
			why := fmt.Sprintf("image not built (%s here): `runner build --gateway %s %s`", about, t.key, r.o.Plan.Source)
			r.images[t.key] = stack.Image{Ref: t.svc.Image, Unavailable: why}
			r.o.Progress.Logf("%s: %s", t.key, why)
			continue
		}
		refs[t.svc.Image] = true
		names = append(names, fmt.Sprintf("%s (%s)", t.key, about))
		total += est
	}
	if len(names) > 0 {
		r.o.Progress.Logf("%d image(s) to build before any stack starts, about %s here in all: %s",
			len(names), total.Round(time.Second), strings.Join(names, ", "))
	}
}

// Build obtains every gateway image of o.Plan as apply does before its
// first stack (`runner build`), and returns them by arm (or balancer).
func Build(ctx context.Context, o Options) map[string]stack.Image {
	r := &execution{o: o, runID: newRunID(), images: map[string]stack.Image{}, mgrs: map[string]*stack.Manager{}}
	name := o.Plan.Layout.Gateway.Engine
	if e, err := r.engine(name); err == nil {
		r.mgrs[name] = &stack.Manager{Engine: e, Run: r.runID}
	} else {
		for i := range o.Plan.Arms {
			r.images[o.Plan.Arms[i].Name] = stack.Image{Unavailable: err.Error()}
		}
		return r.images
	}
	r.buildImages(ctx, ctx)
	return r.images
}

// buildTimesPath is the small cache of how long each image's last build
// took on this machine, beside Go's and cargo's caches. A variable so the
// tests keep theirs apart without moving those caches.
var buildTimesPath = func() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gatewaybench", "build-times.json")
}

func readBuildTimes() map[string]time.Duration {
	out := map[string]time.Duration{}
	path := buildTimesPath()
	if path == "" {
		return out
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	var secs map[string]float64
	if json.Unmarshal(b, &secs) != nil {
		return out // a damaged cache only costs the estimate
	}
	for ref, s := range secs {
		out[ref] = time.Duration(s * float64(time.Second))
	}
	return out
}

// writeBuildTime records a build's time; a cache that cannot be written
// costs the next estimate, never the run.
func writeBuildTime(ref string, d time.Duration) {
	path := buildTimesPath()
	if path == "" {
		return
	}
	secs := map[string]float64{}
	for k, v := range readBuildTimes() {
		secs[k] = v.Seconds()
	}
	secs[ref] = d.Seconds()
	b, err := json.MarshalIndent(secs, "", "  ")
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	_ = os.WriteFile(path, append(b, '\n'), 0o644)
}
