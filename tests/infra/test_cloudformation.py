"""The CloudFormation template lints clean and keeps its security-relevant properties.

cfn-lint runs offline (it ships the resource specifications). Without it, the lint test is skipped;
the structural checks below only need PyYAML.
"""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "infra" / "aws" / "ledgerline.yaml"
LINT_REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2"]


def test_cfn_lint_reports_no_errors_or_warnings() -> None:
    api = pytest.importorskip("cfnlint.api", reason="cfn-lint is not installed")
    matches = api.lint_file(TEMPLATE, config=api.ManualArgs(regions=LINT_REGIONS))
    problems = [m for m in matches if m.rule.id[0] in {"E", "W"}]
    assert not problems, "\n".join(
        f"{m.rule.id} {m.message} ({m.filename}:{m.linenumber})" for m in problems
    )


# --- structural checks ----------------------------------------------------------------------


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that turns CloudFormation short-form tags into their long form."""


def _construct_tag(loader: _CfnLoader, suffix: str, node: yaml.Node) -> dict:
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


@pytest.fixture(scope="module")
def template() -> dict:
    return yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)


@pytest.fixture(scope="module")
def resources(template: dict) -> dict:
    return template["Resources"]


def _of_type(resources: dict, kind: str) -> dict:
    return {name: res for name, res in resources.items() if res["Type"] == kind}


def test_no_yaml_aliases() -> None:
    # CloudFormation's YAML parser rejects anchors, aliases and merge keys.
    for event in yaml.parse(TEMPLATE.read_text(encoding="utf-8"), Loader=yaml.SafeLoader):
        assert not isinstance(event, yaml.AliasEvent), "CloudFormation does not support aliases"
        assert getattr(event, "anchor", None) is None, "CloudFormation does not support anchors"


def test_parameters_for_image_and_network(template: dict) -> None:
    params = template["Parameters"]
    assert params["ImageUri"]["Type"] == "String"
    assert params["VpcId"]["Type"] == "AWS::EC2::VPC::Id"
    assert params["PublicSubnetIds"]["Type"] == "List<AWS::EC2::Subnet::Id>"
    assert params["PrivateSubnetIds"]["Type"] == "List<AWS::EC2::Subnet::Id>"


def test_bucket_private_encrypted_versioned(resources: dict) -> None:
    (bucket,) = _of_type(resources, "AWS::S3::Bucket").values()
    props = bucket["Properties"]
    assert props["VersioningConfiguration"]["Status"] == "Enabled"
    assert all(props["PublicAccessBlockConfiguration"][key] is True for key in (
        "BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"))
    (rule,) = props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in {"aws:kms", "AES256"}
    assert bucket["DeletionPolicy"] == "Retain"


def test_bucket_policy_denies_plain_http(resources: dict) -> None:
    (policy,) = _of_type(resources, "AWS::S3::BucketPolicy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    assert any(
        s["Effect"] == "Deny"
        and s["Principal"] == "*"
        and s["Condition"].get("Bool", {}).get("aws:SecureTransport") == "false"
        for s in statements
    )


def test_database_encrypted_private_managed_password(resources: dict) -> None:
    (db,) = _of_type(resources, "AWS::RDS::DBInstance").values()
    props = db["Properties"]
    assert props["Engine"] == "postgres"
    assert props["StorageEncrypted"] is True
    assert props["PubliclyAccessible"] is False
    assert props["ManageMasterUserPassword"] is True
    assert "MasterUserPassword" not in props
    assert db["DeletionPolicy"] == "Snapshot"


def test_api_and_workers_share_the_image_and_configuration(resources: dict) -> None:
    containers = {}
    for task in _of_type(resources, "AWS::ECS::TaskDefinition").values():
        for container in task["Properties"]["ContainerDefinitions"]:
            containers[container["Name"]] = container
    assert {"api", "worker", "migrate"} <= set(containers)
    assert containers["api"]["Image"] == containers["worker"]["Image"] == {"Ref": "ImageUri"}
    # The migration may run a newer image first; by default it is the same one.
    assert containers["migrate"]["Image"]["Fn::If"][2] == {"Ref": "ImageUri"}
    env_names = {
        name: {e["Name"] for e in c["Environment"]} for name, c in containers.items()
    }
    required = {
        "LEDGERLINE_DATABASE_URL", "LEDGERLINE_STORAGE_URL", "LEDGERLINE_MODEL_PRICE_PER_CALL",
        "LEDGERLINE_CACHE_MODE", "LEDGERLINE_MAX_UPLOAD_BYTES", "LEDGERLINE_LEASE_SECONDS",
    }
    for name, names in env_names.items():
        assert required <= names, f"{name} lacks {required - names}"
    for name, c in containers.items():
        expected = ["PGPASSWORD", "LEDGERLINE_METRICS_TOKEN"] if name == "api" else ["PGPASSWORD"]
        assert [s["Name"] for s in c["Secrets"]] == expected
    assert containers["api"]["Command"][:2] == ["ledgerline", "serve"]
    assert "--no-embedded-worker" in containers["api"]["Command"]
    assert containers["worker"]["Command"][:2] == ["ledgerline", "worker"]
    assert containers["migrate"]["Command"] == ["ledgerline", "db", "upgrade"]


def test_services_private_and_api_behind_load_balancer(resources: dict) -> None:
    services = _of_type(resources, "AWS::ECS::Service")
    assert len(services) == 2
    for svc in services.values():
        net = svc["Properties"]["NetworkConfiguration"]["AwsvpcConfiguration"]
        assert net["AssignPublicIp"] == "DISABLED"
        assert net["Subnets"] == {"Ref": "PrivateSubnetIds"}
    api = resources["ApiService"]["Properties"]
    assert api["LoadBalancers"][0]["ContainerName"] == "api"
    assert "LoadBalancers" not in resources["WorkerService"]["Properties"]


def test_application_role_scoped_to_bucket(resources: dict) -> None:
    role = resources["ApplicationTaskRole"]["Properties"]
    for policy in role["Policies"]:
        for statement in policy["PolicyDocument"]["Statement"]:
            assert statement["Effect"] == "Allow"
            assert all("*" not in action for action in _as_list(statement["Action"]))
            assert statement["Resource"] != "*"
            if any(str(a).startswith("s3:") for a in _as_list(statement["Action"])):
                assert "Bucket" in str(statement["Resource"])
    assert "ManagedPolicyArns" not in role


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else [value]


# --- the edge: what the load balancer forwards, and how it checks the tasks ------------------

FORWARDED = {"/v1/*", "/healthz", "/readyz", "/openapi.json", "/docs", "/problems*",
             "/dashboard", "/dashboard/*"}


def test_listeners_forward_only_the_api_paths(resources: dict) -> None:
    for name in ("HttpsListener", "HttpListener"):
        (action,) = resources[name]["Properties"]["DefaultActions"]
        assert action["Type"] == "fixed-response", name
        assert action["FixedResponseConfig"]["StatusCode"] == "404"
    rules = _of_type(resources, "AWS::ElasticLoadBalancingV2::ListenerRule")
    paths = set()
    for rule in rules.values():
        props = rule["Properties"]
        assert props["ListenerArn"] == {"Fn::If": ["HasCertificate", {"Ref": "HttpsListener"},
                                                   {"Ref": "HttpListener"}]}
        assert [a["Type"] for a in props["Actions"]] == ["forward"]
        for condition in props["Conditions"]:
            assert condition["Field"] == "path-pattern"
            values = condition["PathPatternConfig"]["Values"]
            assert len(values) <= 5  # the load balancer's limit per rule
            paths |= set(values)
    assert paths == FORWARDED
    assert not any("metrics" in p for p in paths)
    assert len({r["Properties"]["Priority"] for r in rules.values()}) == len(rules)


def test_the_load_balancer_checks_readiness(resources: dict) -> None:
    assert resources["ApiTargetGroup"]["Properties"]["HealthCheckPath"] == "/readyz"


def test_the_api_trusts_exactly_the_load_balancer_and_outlives_its_idle_timeout(
        resources: dict) -> None:
    (api,) = resources["ApiTaskDefinition"]["Properties"]["ContainerDefinitions"]
    env = {e["Name"]: e["Value"] for e in api["Environment"]}
    assert env["LEDGERLINE_TRUSTED_PROXY_HOPS"] == "1"
    attributes = {a["Key"]: a["Value"] for a in
                  resources["LoadBalancer"]["Properties"]["LoadBalancerAttributes"]}
    assert float(env["LEDGERLINE_HEADER_TIMEOUT_SECONDS"]) > float(
        attributes["idle_timeout.timeout_seconds"])
    assert api["HealthCheck"]["Command"] == ["CMD", "python", "-m", "ledgerline.http.healthcheck"]


def test_the_metrics_token_is_a_generated_secret_only_the_api_reads(resources: dict) -> None:
    secret = resources["MetricsToken"]
    assert secret["Type"] == "AWS::SecretsManager::Secret"
    assert secret["Properties"]["GenerateSecretString"]["PasswordLength"] >= 32
    (policy,) = resources["TaskExecutionRole"]["Properties"]["Policies"]
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert {"Ref": "MetricsToken"} in statement["Resource"]


WORKER_OVERHEAD_MB = 512  # the worker process and its fork server, beside the children


def test_the_default_worker_task_holds_its_concurrent_extractions(template: dict) -> None:
    params = template["Parameters"]
    concurrency = int(params["WorkerConcurrency"]["Default"])
    extract_mb = int(params["ExtractMemoryMb"]["Default"])
    memory = int(params["WorkerMemory"]["Default"])
    assert concurrency * extract_mb + WORKER_OVERHEAD_MB <= memory, (concurrency, extract_mb,
                                                                    memory)
    (worker,) = template["Resources"]["WorkerTaskDefinition"]["Properties"]["ContainerDefinitions"]
    env = {e["Name"]: e["Value"] for e in worker["Environment"]}
    assert env["LEDGERLINE_EXTRACT_MEMORY_MB"] == {"Ref": "ExtractMemoryMb"}
    assert worker["Command"][2] == {"Fn::Sub": "--concurrency=${WorkerConcurrency}"}
