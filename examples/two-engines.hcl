# Two Docker engines: the mock and the gateways on one (engine "gateways",
# a Docker context), the load drivers on the other (the local engine), two
# driver containers sharing every load point. docs/scale.md walks through
# it on two machines; on one machine a second dockerd stands in for the
# second host:
#
#   dockerd --host unix:///run/gb-second/docker.sock --data-root /var/lib/gb-second \
#     --exec-root /run/gb-second/exec --pidfile /run/gb-second/docker.pid \
#     --bridge none --iptables=false --containerd-namespace gb-second &
#   docker context create gateways --docker host=unix:///run/gb-second/docker.sock
#   go run ./runner apply examples/two-engines.hcl --results results-two-engines
defaults {
  allow_host_paths = [".."]
  trials   = 3
  warmup   = "1s"
  duration = "3s"
  settle   = "500ms"
  floor    = "nginx"
}

engine "gateways" {
  context = "gateways"
  # On two machines: the gateway host's address, which its compose files
  # listen on (${GATEWAY_HOST}) and the drivers send to.
  address = "127.0.0.1"
}

placement {
  driver  = "local"
  mock    = "gateways"
  gateway = "gateways"
}

driver {
  instances = 2
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

mock {
  port          = 18080
  ttft          = "20ms"
  itl           = "4ms"
  output_tokens = 32
}

gateway "nginx" {
  compose = "../compose/nginx.yaml"
  service = "nginx"
  class   = "proxy"
  port    = 18081
  api     = ["openai"]
  version = "Debian nginx-light 1.22"
  prepare = ["../gateways/nginx/prepare.sh"]
}

gateway "haproxy" {
  compose = "../compose/haproxy.yaml"
  service = "haproxy"
  class   = "proxy"
  port    = 18082
  api     = ["openai"]
  version = "Debian haproxy 2.6.12"
  prepare = ["../gateways/debian-closure.sh", "../gateways/haproxy/context", "haproxy", "/usr/sbin/haproxy"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1, 16]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "streaming_turn" {
  kind        = "streaming_turn"
  stream      = true
  concurrency = [1, 16]
}

scenario "throughput" {
  kind          = "throughput"
  rates         = [1000, 4000]
  max_in_flight = 256
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}
