package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/docker/docker/client"
)

// At connects to the engine at host (unix://, tcp:// or ssh://, as
// DOCKER_HOST takes them). ssh:// runs `ssh HOST docker system dial-stdio`
// and speaks the API over its standard input and output, as the docker
// CLI does: the remote user needs the docker CLI and access to its socket.
func At(host string) (*Engine, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("engine host %q: %w", host, err)
	}
	opts := []client.Opt{client.WithAPIVersionNegotiation()}
	if u.Scheme == "ssh" {
		opts = append(opts, client.WithHost("http://docker.invalid"), client.WithDialContext(sshDialer(u)))
	} else {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client for %s: %w", host, err)
	}
	return &Engine{cli: cli}, nil
}

// ContextHost is the Docker endpoint a Docker context names, read from the
// docker CLI's context store ($DOCKER_CONFIG, or ~/.docker): contexts/meta/
// <sha256 of the name>/meta.json. TLS material of tcp contexts is not read:
// such an engine is reached without TLS, which the error says when it fails.
func ContextHost(name string) (string, error) {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".docker")
	}
	sum := sha256.Sum256([]byte(name))
	path := filepath.Join(dir, "contexts", "meta", hex.EncodeToString(sum[:]), "meta.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("Docker context %q: %w (create it with `docker context create %s --docker host=...`)", name, err, name)
	}
	var meta struct {
		Endpoints map[string]struct {
			Host string `json:"Host"`
		} `json:"Endpoints"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return "", fmt.Errorf("Docker context %q: %s: %w", name, path, err)
	}
	host := meta.Endpoints["docker"].Host
	if host == "" {
		return "", fmt.Errorf("Docker context %q names no docker endpoint (%s)", name, path)
	}
	return host, nil
}

// sshDialer dials the engine through ssh: each connection is one
// `docker system dial-stdio` on the remote host.
func sshDialer(u *url.URL) func(ctx context.Context, network, addr string) (net.Conn, error) {
	args := []string{"-o", "ConnectTimeout=30", "-T"}
	if u.Port() != "" {
		args = append(args, "-p", u.Port())
	}
	target := u.Hostname()
	if u.User != nil {
		target = u.User.Username() + "@" + target
	}
	args = append(args, "--", target, "docker", "system", "dial-stdio")
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		cmd := exec.Command("ssh", args...)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("ssh to %s: %w", target, err)
		}
		return &cmdConn{cmd: cmd, in: in, out: out}, nil
	}
}

// cmdConn is a connection over a command's standard input and output.
type cmdConn struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  io.ReadCloser
	once sync.Once
}

func (c *cmdConn) Read(b []byte) (int, error)  { return c.out.Read(b) }
func (c *cmdConn) Write(b []byte) (int, error) { return c.in.Write(b) }
func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		c.out.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	return nil
}
func (c *cmdConn) LocalAddr() net.Addr              { return dummyAddr{} }
func (c *cmdConn) RemoteAddr() net.Addr             { return dummyAddr{} }
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }

type dummyAddr struct{}

func (dummyAddr) Network() string { return "ssh" }
func (dummyAddr) String() string  { return "ssh" }
