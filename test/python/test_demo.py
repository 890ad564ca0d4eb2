"""`tcc demo` (README's install command runs it) compiles for both vendors."""

from tcc.demo import run_demo


def test_demo_compiles_for_nvidia_and_amd(capsys):
    assert run_demo("bias_gelu", launch=False) == 0
    out = capsys.readouterr().out
    assert "tcc.gelu" in out  # the symbolic program
    # 1000x777 with a row bias: one flat stream (view = flat_gather) of
    # 777,000 elements in blocks of 1024 (a gathered stream takes half the
    # elements per program).
    assert "sm_90: kernel bias_gelu, grid (759, 1, 1), block (128, 1, 1)" in out
    assert "gfx942: kernel bias_gelu, grid (759, 1, 1), block (256, 1, 1)" in out
    assert ".target sm_90" in out


def test_demo_unknown_example_names_the_available_ones():
    import pytest

    with pytest.raises(SystemExit, match="no demo 'nope'; try: bias_gelu"):
        run_demo("nope", launch=False)
