module github.com/quillstack/gateway

go 1.23.3
