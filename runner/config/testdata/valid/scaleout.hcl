# Scale-out: the mock and the gateway on a second engine, two drivers (one
# on each engine), and a gateway in two replicas on their own cpusets.
defaults {
  allow_host_paths = ["../compose"]
}

engine "second" {
  host = "unix:///run/gatewaybench-second/docker.sock"
}

engine "remote" {
  context = "lab"
  address = "10.0.0.7"
}

placement {
  driver  = "local"
  mock    = "second"
  gateway = "second"
}

driver {
  instances = 2
  engines   = ["local", "second"]
}

gateway "proxy" {
  compose      = "../compose/ok.yaml"
  service      = "proxy"
  class        = "proxy"
  port         = 18081
  api          = ["openai"]
  replicas     = 2
  replica_cpus = ["0", "1"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1, 4]
  trials      = 1
}
