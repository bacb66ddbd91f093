defaults {
  allow_host_paths = ["../compose"]
}

gateway "reach" {
  compose = "/etc/passwd" # want: Compose file outside the benchmark
  service = "x"
  port    = 19001
  api     = ["openai"]
}

gateway "owner" {
  compose = "../compose/hostile.yaml"
  service = "owner" # want: Compose service refused
  port    = 19002
  api     = ["openai"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
