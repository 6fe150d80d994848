module github.com/meadowlark/billing

go 1.23.4
