module example.com/op
