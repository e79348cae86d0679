module ctxbench/runtimes/go

go 1.23
