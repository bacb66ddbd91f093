# A gateway scaled out: nginx alone and nginx in two replicas (each its own
# container, port and cpuset), side by side under the same load. The
# driver's connections go round robin over the replicas (connection k to
# replica k mod 2); rows give the replicas' CPU and memory summed and one
# by one (replica_cpu_cores, replica_mem_peak_mib).
#
#   go run ./runner apply examples/replicas.hcl --results results-replicas
defaults {
  allow_host_paths = [".."]
  trials   = 3
  warmup   = "1s"
  duration = "3s"
  settle   = "500ms"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

mock {
  port = 18080
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

gateway "nginx-x2" {
  compose      = "../compose/nginx.yaml"
  service      = "nginx"
  class        = "proxy"
  port         = 18091 # and 18092 for the second replica
  api          = ["openai"]
  version      = "Debian nginx-light 1.22"
  prepare      = ["../gateways/nginx/prepare.sh"]
  replicas     = 2
  replica_cpus = ["1", "0"]
}

# The same two replicas behind a declared L7 balancer: nginx, round robin
# per request (compose/nginx-lb.yaml). Its CPU and memory are in the arm's
# sums, and apart in balancer_cpu_cores and balancer_mem_peak_mib.
gateway "nginx-x2-lb" {
  compose      = "../compose/nginx.yaml"
  service      = "nginx"
  class        = "proxy"
  port         = 18093 # and 18094
  api          = ["openai"]
  version      = "Debian nginx-light 1.22"
  prepare      = ["../gateways/nginx/prepare.sh"]
  replicas     = 2
  replica_cpus = ["1", "0"]
  balancer {
    compose = "../compose/nginx-lb.yaml"
    service = "lb"
    port    = 18095
    cpus    = "1"
  }
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1, 4, 32]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}
