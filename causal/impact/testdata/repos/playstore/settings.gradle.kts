rootProject.name = "notes"
include(":app")
