defaults {
  allow_host_paths = ["../compose"]
}

gateway "missing" {
  compose = "../compose/nope.yaml" # want: Missing compose file
  service = "proxy"
  port    = 19001
  api     = ["openai"]
}

gateway "rejected" {
  compose = "../compose/bad.yaml" # want: Invalid compose file
  service = "proxy"
  port    = 19002
  api     = ["openai"]
}

gateway "noservice" {
  compose = "../compose/ok.yaml"
  service = "gateway" # want: Service not in compose file
  port    = 19003
  api     = ["openai"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
