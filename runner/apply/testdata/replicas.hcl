# nginx in two replicas, each on its own cpuset and port, the driver's
# connections spread over them. TestApplyReplicas checks from the
# replicas' cgroups that both served.
defaults {
  allow_host_paths = ["../../.."]
  trials   = 1
  warmup   = "300ms"
  duration = "1500ms"
  settle   = "200ms"
}

cpus {
  driver  = "0"
  mock    = "0"
  gateway = "1"
}

memory {
  mock    = "256MiB"
  gateway = "64MiB"
}

mock {
  port = 28380
  fallback_port = 28379
  ttft = "0s"
  itl  = "0s"
  output_tokens = 8
}

gateway "nginx" {
  class        = "proxy"
  compose      = "../../../compose/nginx.yaml"
  service      = "nginx"
  port         = 28381
  api          = ["openai"]
  prepare      = ["../../../gateways/nginx/prepare.sh"]
  replicas     = 2
  replica_cpus = ["1", "0"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [4]
}

# The same two replicas behind a declared L7 balancer (nginx).
gateway "nginx-lb" {
  class        = "proxy"
  compose      = "../../../compose/nginx.yaml"
  service      = "nginx"
  port         = 28384
  api          = ["openai"]
  prepare      = ["../../../gateways/nginx/prepare.sh"]
  replicas     = 2
  replica_cpus = ["1", "0"]
  balancer {
    compose = "../../../compose/nginx-lb.yaml"
    service = "lb"
    port    = 28390
    cpus    = "1"
  }
}
