# nginx measured beside a neighbour that burns about 20% of the gateway's
# core (TestIsolationDocker): frozen while nginx is measured, or not.
defaults {
  allow_host_paths = ["../../.."]
  trials   = 1
  warmup   = "250ms"
  duration = "1500ms"
  settle   = "200ms"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

memory {
  mock    = "256MiB"
  gateway = "256MiB"
}

mock {
  port = 28290
  ttft = "0s"
  itl  = "0s"
  output_tokens = 8
}

gateway "nginx" {
  compose = "../../../compose/nginx.yaml"
  service = "nginx"
  port    = 28291
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "neighbour" {
  compose = "neighbour.yaml"
  service = "neighbour"
  port    = 28292
  api     = ["openai"]
  prepare = ["../../../gateways/portkey/prepare.sh"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
