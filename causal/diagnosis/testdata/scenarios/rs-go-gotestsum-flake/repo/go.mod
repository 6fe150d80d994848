module github.com/orbit-works/cronkeeper

go 1.23
