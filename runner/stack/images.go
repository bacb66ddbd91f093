package stack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Image is how a service's image was obtained.
type Image struct {
	Ref    string
	ID     string
	Size   int64
	Source ImageSource
	// Prepare and Build are how long the prepare command and the engine's
	// build took, when the image was built here.
	Prepare, Build time.Duration
	// Unavailable holds the evidence when the image could be neither found,
	// built nor pulled; the gateway is then skipped and the run goes on.
	Unavailable string
}

// ImageSource is where an image came from.
type ImageSource string

const (
	SourceLocal  ImageSource = "local"  // the engine had it
	SourceBuilt  ImageSource = "built"  // built here, after its prepare command
	SourceLoaded ImageSource = "loaded" // loaded from another engine
	SourcePulled ImageSource = "pulled" // pulled from a registry
)

// pullTimeout bounds a pull that gets no answer.
const pullTimeout = 2 * time.Minute

// EnsureImage finds s's image on e, else builds it there (running the
// prepare command first), else loads it from donor (another engine that
// has it: the local one, for an engine elsewhere; nil for none), else
// pulls it; failing all, it returns the evidence.
func EnsureImage(ctx context.Context, e Engine, s *Service, labels map[string]string, donor Engine) Image {
	img := Image{Ref: s.Image}
	found := func(source ImageSource) bool {
		info, err := e.Image(ctx, s.Image)
		if err != nil || !info.Found {
			return false
		}
		img.ID, img.Size, img.Source = info.ID, info.Size, source
		return true
	}
	info, err := e.Image(ctx, s.Image)
	if err == nil && info.Found {
		img.ID, img.Size, img.Source = info.ID, info.Size, SourceLocal
		return img
	}
	var evidence []string
	if err != nil {
		evidence = append(evidence, "inspect: "+err.Error())
	} else {
		evidence = append(evidence, "not present locally")
	}
	if s.Build != nil {
		var err error
		if img.Prepare, img.Build, err = build(ctx, e, s, labels); err != nil {
			evidence = append(evidence, "build: "+err.Error())
		} else if found(SourceBuilt) {
			return img
		}
	} else {
		evidence = append(evidence, "no build section")
	}
	if donor != nil {
		if err := transfer(ctx, donor, e, s.Image); err != nil {
			evidence = append(evidence, "load from the local engine: "+err.Error())
		} else if found(SourceLoaded) {
			return img
		}
	}
	pctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	if err := e.Pull(pctx, s.Image); err != nil {
		evidence = append(evidence, err.Error())
	} else if found(SourcePulled) {
		return img
	}
	img.Unavailable = strings.Join(evidence, "; ")
	return img
}

// transfer moves image ref from one engine to another, as docker save |
// docker load would, streamed.
func transfer(ctx context.Context, from, to Engine, ref string) error {
	if info, err := from.Image(ctx, ref); err != nil || !info.Found {
		return fmt.Errorf("it has no %s either", ref)
	}
	r, err := from.Save(ctx, ref)
	if err != nil {
		return err
	}
	defer r.Close()
	return to.Load(ctx, ref, r)
}

// build runs s's prepare command, then builds its context on e, and says
// how long each took.
func build(ctx context.Context, e Engine, s *Service, labels map[string]string) (prepare, image time.Duration, err error) {
	b := s.Build
	start := time.Now()
	if len(b.Prepare) > 0 {
		cmd := HostCommand(ctx, b.Prepare[0], b.Prepare[1:]...)
		cmd.Dir = b.PrepareDir
		cmd.Env = append(os.Environ(), b.Env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return time.Since(start), 0, fmt.Errorf("prepare %q: %v\n%s", strings.Join(b.Prepare, " "), err, tail(out, 2000))
		}
	}
	prepare, start = time.Since(start), time.Now()
	entries, err := contextEntries(b.Context, b.Dockerfile, MaxContextBytes)
	if err != nil {
		return prepare, 0, err
	}
	// Streamed: a context of hundreds of MiB is never held in memory.
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(packContext(pw, b.Context, b.Dockerfile, entries)) }()
	err = e.BuildImage(ctx, s.Image, pr, labels)
	pr.CloseWithError(io.ErrClosedPipe) // the packer stops if the build did not read to the end
	return prepare, time.Since(start), err
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// MockImage builds the mock as a static binary and packs it FROM scratch.
func MockImage(ctx context.Context, e Engine, moduleDir string, labels map[string]string) (Image, error) {
	return goImage(ctx, e, moduleDir, "mock", labels)
}

// DriverImage is the load driver (./driver) as an image, for engines the
// HCL places drivers on (docs/scale.md).
func DriverImage(ctx context.Context, e Engine, moduleDir string, labels map[string]string) (Image, error) {
	return goImage(ctx, e, moduleDir, "driver", labels)
}

// goImage builds the command in moduleDir/name as a static binary and packs
// it FROM scratch as gatewaybench/name. The tag carries the binary's hash,
// so a changed binary is a new image, and the same one is built once per
// engine.
func goImage(ctx context.Context, e Engine, moduleDir, name string, labels map[string]string) (Image, error) {
	tmp, err := TempDir(name)
	if err != nil {
		return Image{}, err
	}
	defer tmp.Remove()
	bin := filepath.Join(tmp.Dir, name)
	cmd := HostCommand(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./"+name)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return Image{}, fmt.Errorf("building the %s image: interrupted", name)
		}
		return Image{}, fmt.Errorf("build the %s from its source in %q (run runner from the gatewaybench repository, or keep the HCL file inside it): %v\n%s", name, moduleDir, err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return Image{}, err
	}
	sum := sha256.Sum256(data)
	ref := "gatewaybench/" + name + ":" + hex.EncodeToString(sum[:6])
	if info, err := e.Image(ctx, ref); err == nil && info.Found {
		return Image{Ref: ref, ID: info.ID, Size: info.Size, Source: "local"}, nil
	}
	tarball, err := TarContext(map[string]File{
		"Dockerfile": {Data: []byte("FROM scratch\nCOPY " + name + " /" + name + "\nENTRYPOINT [\"/" + name + "\"]\n")},
		name:         {Mode: 0o755, Data: data},
	})
	if err != nil {
		return Image{}, err
	}
	if err := e.BuildImage(ctx, ref, bytes.NewReader(tarball), labels); err != nil {
		return Image{}, err
	}
	info, err := e.Image(ctx, ref)
	if err != nil || !info.Found {
		return Image{}, fmt.Errorf("built %s but cannot find it: %v", ref, err)
	}
	return Image{Ref: ref, ID: info.ID, Size: info.Size, Source: "built"}, nil
}
