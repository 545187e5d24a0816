"""The kaisim command itself: its commands, as --help and the README list them."""
import re

from conftest import SOURCE_DIR

COMMANDS = ["replay", "explain", "plan", "cycle", "fairshare", "serve", "gen", "snapshot", "apply", "diff", "verify-live"]


def test_an_unknown_command_is_named_and_the_commands_listed(kaisim):
    run = kaisim("simulate", "x.yaml")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("kaisim: error: unknown command 'simulate'; the commands are replay, explain, plan, cycle, "
                          "fairshare, serve, gen, snapshot, apply, diff and verify-live (kaisim --help)\n")


def test_help_and_the_readme_list_the_same_commands(kaisim):
    help_text = kaisim("--help").stdout
    listed = re.findall(r"^  ([\w-]+)\s{2,}", help_text.split("Subcommands:")[1], re.M)
    assert listed == COMMANDS
    readme = (SOURCE_DIR / "README.md").read_text()
    table = readme.split("## Commands")[1].split("\n\n")[1]
    # a command with several forms (gen trace, gen cluster) has a row for each
    assert list(dict.fromkeys(re.findall(r"^\| `kaisim ([\w-]+)", table, re.M))) == COMMANDS
