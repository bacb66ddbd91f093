# examples/kubernetes.hcl on the local Docker engine: the same mock,
# gateways, scenarios and cores, for the figures docs/scale.md sets side by
# side with the cluster's.
#
#   go run ./runner apply examples/kubernetes-docker.hcl --gateway nginx --results results-k8s-docker

defaults {
  allow_host_paths = [".."]
  starts    = 2
  trials    = 2
  warmup    = "1s"
  duration  = "3s"
  settle    = "500ms"
  isolation = "none"
}

# Node 1 of scripts/k8s-up.sh keeps CPU 0 for the system and gives CPU 1
# to a Guaranteed pod: the gateway takes it; the mock shares CPU 0 with
# the driver (and, on Kubernetes, the control plane).
cpus {
  driver  = "0"
  mock    = "0"
  gateway = "1"
}

memory {
  driver  = "1GiB"
  mock    = "1GiB"
  gateway = "2GiB"
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

gateway "portkey" {
  compose = "../compose/portkey.yaml"
  service = "portkey"
  port    = 18084
  api     = ["openai"]
  version = "@portkey-ai/gateway 1.15.2 (@hono/node-server 1.14.1), Node.js 20"
  prepare = ["../gateways/portkey/prepare.sh"]
  warmup_requests = 5000
  headers = {
    "x-portkey-provider"    = "openai"
    "x-portkey-custom-host" = "${mock.url}/v1"
  }
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "streaming_turn" {
  kind        = "streaming_turn"
  stream      = true
  concurrency = [1]
}
