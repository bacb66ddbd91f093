# A small real run: mock, direct, nginx, and two gateways that fail at start.
defaults {
  trials   = 1
  warmup   = "200ms"
  duration = "1s"
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
  port = 28180
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "nginx" {
  compose = "../../../compose/nginx.yaml"
  service = "nginx"
  port    = 28181
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "crash" {
  compose = "compose/crash.yaml"
  service = "app"
  port    = 28182
  api     = ["openai"]
  prepare = ["./prepare-app.sh", "crash"]
}

gateway "oom" {
  compose = "compose/oom.yaml"
  service = "app"
  port    = 28183
  api     = ["openai"]
  prepare = ["./prepare-app.sh", "oom"]
}

scenario "overhead" {
  kind        = "overhead"
  stream      = true
  concurrency = [1, 4]
}
