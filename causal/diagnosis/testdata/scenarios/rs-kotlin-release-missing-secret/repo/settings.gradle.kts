rootProject.name = "ledger-svc"
include("app")
