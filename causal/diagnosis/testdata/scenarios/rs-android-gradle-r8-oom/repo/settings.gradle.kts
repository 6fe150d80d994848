rootProject.name = "pocketbank"
include(":app")
