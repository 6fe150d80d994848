package x

func TestA(t *testing.T) {
	f()
}
