module github.com/terraform-providers/terraform-provider-github

go 1.13

require (
	github.com/client9/misspell v0.3.4
	github.com/golangci/golangci-lint v1.25.1
	github.com/google/go-github/v31 v31.0.0
	github.com/hashicorp/terraform v0.12.24
	github.com/hashicorp/terraform-plugin-sdk v1.7.0
	github.com/kylelemons/godebug v1.1.0
	github.com/shurcooL/githubv4 v0.0.0-20191127044304-8f68eb5628d0
	github.com/shurcooL/graphql v0.0.0-20181231061246-d48a9a75455f // indirect
	golang.org/x/crypto v0.0.0-20200221231518-2aa609cf4a9d
	golang.org/x/oauth2 v0.0.0-20200107190931-bf48bf16ab8d
)
