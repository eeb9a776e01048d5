module github.com/cudapkgs/cudapkgs

go 1.26.8
