"""How kaisim reaches the apiserver: TLS verified by default (and against tls-server-name), an
exec credential plugin, --context."""
import os
import pathlib
import re

import yaml


def edited_kubeconfig(tmp_path, edit):
    config = yaml.safe_load(pathlib.Path(os.environ["KUBECONFIG"]).read_text())
    edit(config)
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def cluster(config):
    return config["clusters"][0]["cluster"]


def test_tls_is_verified_by_default(kaisim, tmp_path):
    # Without the cluster's CA the system's CAs do not know the apiserver's certificate: a clear
    # TLS error at once (not retried), nothing read.
    path = edited_kubeconfig(tmp_path, lambda c: cluster(c).pop("certificate-authority-data"))
    run = kaisim("snapshot", "--kubeconfig", path, "-v")
    assert run.returncode == 2
    assert re.search(r"kaisim: error: https://127\.0\.0\.1:\d+: SSL certificate problem", run.stderr), run.stderr
    assert "retrying" not in run.stderr and run.stdout == ""
    # insecure-skip-tls-verify is the kubeconfig's own choice.
    path = edited_kubeconfig(tmp_path, lambda c: (cluster(c).pop("certificate-authority-data"),
                                                  cluster(c).update({"insecure-skip-tls-verify": True})))
    assert kaisim("snapshot", "--kubeconfig", path).returncode == 0


def test_tls_server_name_is_the_name_verified(kaisim, tmp_path):
    ok = edited_kubeconfig(tmp_path, lambda c: cluster(c).update({"tls-server-name": "kubernetes.default.svc"}))
    assert kaisim("snapshot", "--kubeconfig", ok).returncode == 0
    wrong = edited_kubeconfig(tmp_path, lambda c: cluster(c).update({"tls-server-name": "not-the-apiserver.example"}))
    run = kaisim("snapshot", "--kubeconfig", wrong)
    assert run.returncode == 2
    assert "not-the-apiserver.example" in run.stderr and "SSL" in run.stderr, run.stderr


def test_an_exec_credential_plugin_supplies_the_token(kaisim, tmp_path):
    config = yaml.safe_load(pathlib.Path(os.environ["KUBECONFIG"]).read_text())
    token = next(u["user"]["token"] for u in config["users"] if u["name"] == "admin-token")
    plugin = tmp_path / "credential-plugin"
    calls = tmp_path / "calls"
    plugin.write_text(f"""#!/bin/sh
echo "$KUBERNETES_EXEC_INFO" >> {calls}
echo '{{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {{"token": "{token}"}}}}'
""")
    plugin.chmod(0o700)

    def edit(c):
        c["users"].append({"name": "plugin", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1",
                                                               "command": "./credential-plugin", "interactiveMode": "Never"}}})
        c["contexts"].append({"name": "plugin", "context": {"cluster": "testcluster", "user": "plugin"}})
    path = edited_kubeconfig(tmp_path, edit)
    run = kaisim("snapshot", "--kubeconfig", path, "--context", "plugin")
    assert run.returncode == 0, run.stderr
    assert '"kind":"ExecCredential"' in calls.read_text()
    assert token not in run.stdout + run.stderr
