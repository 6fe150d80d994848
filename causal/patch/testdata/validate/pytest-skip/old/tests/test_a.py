def test_a():
    assert f() == 1
