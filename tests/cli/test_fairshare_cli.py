"""`kaisim fairshare`: KAI's fair-share simulator answers, byte for byte, and clean failures."""
import json

from conftest import DATA, SOURCE_DIR

README_ANSWER = ('{"queue1":{"gpu":70,"cpu":16000,"memory":100000},'
                 '"queue2":{"gpu":30,"cpu":16000,"memory":100000}}\n')


def test_kai_readme_example_gives_70_30(kaisim):
    run = kaisim("fairshare", DATA / "kai-readme-example.json")
    assert run.returncode == 0, run.stderr
    assert run.stdout == README_ANSWER
    assert run.stderr == ""


def test_reads_standard_input(kaisim):
    body = (DATA / "kai-readme-example.json").read_text()
    run = kaisim("fairshare", "-", stdin=body)
    assert run.returncode == 0
    assert run.stdout == README_ANSWER


def test_pretty_output_is_the_same_json(kaisim):
    run = kaisim("fairshare", "--pretty", DATA / "kai-readme-example.json")
    assert json.loads(run.stdout) == json.loads(README_ANSWER)
    assert run.stdout.startswith("{\n  \"queue1\": {\n")


def test_runbook_queues_three_pods(kaisim):
    run = kaisim("fairshare", SOURCE_DIR / "scenarios/seed/fairshare-three-pods.yaml")
    assert run.returncode == 0, run.stderr
    shares = json.loads(run.stdout)
    assert shares["ml-org"]["gpu"] == 0.99
    for team in ("team-nlp", "team-vision", "team-recommender"):
        assert shares[team] == {"gpu": 0.33, "cpu": 0, "memory": 0}


def test_hierarchy_divides_parent_share_among_children(kaisim):
    body = json.dumps({
        "totalResource": {"GPU": 12},
        "queues": [
            {"uid": "d1", "resourceShare": {"gpu": {"deserved": 3}}},
            {"uid": "d2", "resourceShare": {"gpu": {"deserved": 1, "overQuotaWeight": 7}}},
            {"uid": "q1", "parentQueue": "d1", "resourceShare": {"gpu": {"deserved": 2}}},
            {"uid": "q2", "parentQueue": "d2", "resourceShare": {"gpu": {"deserved": 2}}},
        ]})
    run = kaisim("fairshare", "-", stdin=body)
    assert run.returncode == 0, run.stderr
    gpu = {uid: v["gpu"] for uid, v in json.loads(run.stdout).items()}
    assert gpu == {"d1": 4, "q1": 4, "d2": 8, "q2": 8}


def test_kvalue_uses_absolute_usage(kaisim):
    body = json.dumps({
        "totalResource": {"GPU": 10}, "kValue": 1,
        "queues": [
            {"uid": "a", "resourceShare": {"gpu": {"request": 100, "absoluteUsage": 0.5}}},
            {"uid": "b", "resourceShare": {"gpu": {"request": 100}}},
        ]})
    run = kaisim("fairshare", "-", stdin=body)
    gpu = {uid: v["gpu"] for uid, v in json.loads(run.stdout).items()}
    assert gpu == {"a": 3, "b": 7}


def test_orphan_queue_is_dropped_with_a_warning(kaisim):
    body = '{"totalResource": {"GPU": 2}, "queues": [{"uid": "a"}, {"uid": "lost", "parentQueue": "nope"}]}'
    run = kaisim("fairshare", "-", stdin=body)
    assert run.returncode == 0
    assert list(json.loads(run.stdout)) == ["a"]
    assert 'parent queue "nope" does not exist' in run.stderr


BAD_INPUTS = [
    ('{"queues": [{"uid": "a", "resourceShare": {"gpu": {"deserved": "x"}}}]}',
     '<stdin>:1:64: queues[0].resourceShare.gpu.deserved: expected a number, got string "x"'),
    ('{"queues": [{"uid": "a"}, {"uid": "a"}]}',
     '<stdin>:1:27: queues[1]: duplicate queue "a" (first declared at queues[0])'),
    ('{"queues": [{"uid": "a", "parentQueue": "b"}, {"uid": "b", "parentQueue": "a"}]}',
     '<stdin>:1:13: queues[0].parentQueue: queue hierarchy has a cycle: a -> b -> a'),
    ('{"queues": [', "<stdin>:1:13: queues[0]: not valid JSON: syntax error while parsing value - unexpected end of input; "
                     "expected '[', '{', or a literal"),
    ('{"totalResource": {"GPU": -4}}', '<stdin>:1:27: totalResource.GPU: must be >= 0, got -4'),
]


def test_bad_input_one_message_exit_2_nothing_on_stdout(kaisim):
    for body, message in BAD_INPUTS:
        run = kaisim("fairshare", "-", stdin=body)
        assert run.returncode == 2, body
        assert run.stdout == ""
        assert run.stderr == f"kaisim: error: {message}\n"


def test_missing_file_and_missing_argument(kaisim, tmp_path):
    run = kaisim("fairshare", tmp_path / "absent.json")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == f"kaisim: error: {tmp_path / 'absent.json'}: cannot open: No such file or directory\n"
    run = kaisim("fairshare")
    assert run.returncode == 2
    assert "input is required" in run.stderr


def test_a_directory_is_not_a_request(kaisim, tmp_path):
    run = kaisim("fairshare", tmp_path)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("kaisim: error: ")


def test_every_command_has_help(kaisim):
    for args in (["--help"], ["fairshare", "--help"], ["serve", "--help"]):
        run = kaisim(*args)
        assert run.returncode == 0, args
        assert "Usage" in run.stdout or "usage" in run.stdout.lower()


def test_unknown_command_is_bad_input(kaisim):
    run = kaisim("frobnicate")
    assert run.returncode == 2
    assert run.stdout == ""
