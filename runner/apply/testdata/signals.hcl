# A run to interrupt (8 s windows: a signal sent on the "under way" line
# lands inside one on a busy machine), or to try a second apply beside:
# mock, direct and nginx.
defaults {
  allow_host_paths = ["../../.."]
  trials   = 1
  warmup   = "200ms"
  duration = "8s"
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
  port = 28190
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "nginx" {
  compose = "../../../compose/nginx.yaml"
  service = "nginx"
  port    = 28191
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

scenario "overhead" {
  kind        = "overhead"
  stream      = true
  concurrency = [1]
}
