# s3common.py: what the S3 test scripts share: the server radosgw-run
# started (NCZ_TEST_S3_*), credentials files, unique bucket names, boto3
# and awscli clients, TAP output.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import subprocess
import sys
import uuid

ENDPOINT = os.environ.get("NCZ_TEST_S3_ENDPOINT", "")
ACCESS_KEY = os.environ.get("NCZ_TEST_S3_ACCESS_KEY", "")
SECRET_KEY = os.environ.get("NCZ_TEST_S3_SECRET_KEY", "")
SERVER_DIR = os.environ.get("NCZ_TEST_S3_DIR", "")
AWS = "/usr/bin/aws"  # Debian's awscli; another `aws` may come first on PATH


def require_server():
    if not ENDPOINT or not ACCESS_KEY or not SECRET_KEY:
        print("1..0 # SKIP not run by tests/s3/radosgw-run (no NCZ_TEST_S3_ENDPOINT)")
        sys.exit(77)


def host_port():
    """'127.0.0.1:PORT' of the endpoint."""
    return ENDPOINT.split("://", 1)[1].rstrip("/")


def port():
    return int(host_port().rsplit(":", 1)[1])


def write_aws_files(directory):
    """Credentials and config files with the profiles the tests use:
    default (the server's user), wrongsecret (its key id with another
    secret), unknownkey (a key id the server does not know). Returns the
    environment entries that select them."""
    os.makedirs(directory, exist_ok=True)
    creds = os.path.join(directory, "credentials")
    conf = os.path.join(directory, "config")
    wrong = SECRET_KEY[:-4] + ("AAAA" if not SECRET_KEY.endswith("AAAA") else "BBBB")
    with open(creds, "w") as f:
        f.write(f"[default]\naws_access_key_id = {ACCESS_KEY}\n"
                f"aws_secret_access_key = {SECRET_KEY}\n\n"
                f"[wrongsecret]\naws_access_key_id = {ACCESS_KEY}\n"
                f"aws_secret_access_key = {wrong}\n\n"
                f"[unknownkey]\naws_access_key_id = NCZUNKNOWNKEY0000000\n"
                f"aws_secret_access_key = {SECRET_KEY}\n")
    with open(conf, "w") as f:
        for p in ("default", "profile wrongsecret", "profile unknownkey"):
            f.write(f"[{p}]\nregion = us-east-1\n\n")
    return {"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": conf}


def clean_env(extra=None):
    """The environment for a child: the test's own AWS files (never the
    user's ~/.aws), no credentials from the caller's environment."""
    env = dict(os.environ)
    for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
              "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
              "AWS_ENDPOINT_URL"):
        env.pop(k, None)
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    if extra:
        env.update(extra)
    return env


def unique_bucket(tag):
    """A bucket name of this run: 3-63 DNS-style characters."""
    prefix = os.environ.get("NCZ_TEST_S3_BUCKET_PREFIX", "ncz-test")
    name = f"{prefix}-{tag}-{uuid.uuid4().hex[:10]}".lower()
    return name[:63].rstrip("-")


def boto3_client(max_pool=10, endpoint=None, secret=None, key_id=None):
    import boto3
    from botocore.config import Config
    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint or ENDPOINT, region_name="us-east-1",
        aws_access_key_id=key_id or ACCESS_KEY,
        aws_secret_access_key=secret or SECRET_KEY,
        config=Config(signature_version="s3v4", max_pool_connections=max_pool,
                      s3={"addressing_style": "path"},
                      retries={"total_max_attempts": 1, "mode": "standard"}))


def create_bucket(client, name):
    client.create_bucket(Bucket=name)
    return name


def remove_bucket(client, name):
    """Deletes every object of a bucket, then the bucket; no error when
    the bucket is gone."""
    try:
        token = None
        while True:
            kw = {"Bucket": name, "MaxKeys": 1000}
            if token:
                kw["ContinuationToken"] = token
            r = client.list_objects_v2(**kw)
            keys = [{"Key": o["Key"]} for o in r.get("Contents", [])]
            if keys:
                client.delete_objects(Bucket=name, Delete={"Objects": keys, "Quiet": True})
            if not r.get("IsTruncated"):
                break
            token = r.get("NextContinuationToken")
        # unfinished multipart uploads keep a bucket from being removed
        for u in client.list_multipart_uploads(Bucket=name).get("Uploads", []):
            client.abort_multipart_upload(Bucket=name, Key=u["Key"], UploadId=u["UploadId"])
        client.delete_bucket(Bucket=name)
    except client.exceptions.NoSuchBucket:
        pass


def list_keys(client, bucket, prefix=""):
    keys = []
    token = None
    while True:
        kw = {"Bucket": bucket, "Prefix": prefix}
        if token:
            kw["ContinuationToken"] = token
        r = client.list_objects_v2(**kw)
        keys += [o["Key"] for o in r.get("Contents", [])]
        if not r.get("IsTruncated"):
            return keys
        token = r["NextContinuationToken"]


def aws(args, env, timeout=300):
    """Runs Debian's awscli against the server."""
    return subprocess.run([AWS, "--endpoint-url", ENDPOINT] + list(args),
                          capture_output=True, text=True, env=env, timeout=timeout)


def s3_url(bucket, key="", mode="nczarr", extra=""):
    """The path-style URL of a dataset on the server (see S3-CONTRACT)."""
    frag = f"#mode={mode},s3" + (f"&{extra}" if extra else "")
    return f"{ENDPOINT}/{bucket}/{key}{frag}"


def rgw_perf():
    """The gateway's perf counters (ceph --admin-daemon ... perf dump)."""
    import json
    sock = os.path.join(SERVER_DIR, "run", "client.rgw.asok")
    r = subprocess.run(["ceph", "--admin-daemon", sock, "perf", "dump"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout).get("rgw")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {name}")
        else:
            self.failed += 1
            print(f"not ok {self.n} - {name}")
            for line in str(detail).splitlines()[:60]:
                print(f"# {line}")
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print(f"ok {self.n} - {name} # SKIP {why}")
        sys.stdout.flush()

    def note(self, text):
        for line in str(text).splitlines():
            print(f"# {line}")
        sys.stdout.flush()

    def done(self):
        print(f"1..{self.n}")
        sys.stdout.flush()
        return 1 if self.failed else 0


def rgw_stop():
    """Stops the gateway (the monitor and OSD keep running)."""
    import signal
    import time
    with open(os.path.join(SERVER_DIR, "run", "rgw.pgid")) as f:
        pid = int(f.read().strip())
    import socket

    def answers():
        try:
            socket.create_connection(("127.0.0.1", port()), timeout=1).close()
            return True
        except OSError:
            return False
    # a clean stop (SIGTERM) drops its watches on the cluster's objects: a
    # gateway killed outright leaves them to time out, and the new one
    # then waits ~25 s to delete a bucket
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)   # radosgw-run starts it as a session leader
        except ProcessLookupError:
            pass
        # gone when its port refuses connections (the process may stay a
        # zombie of radosgw-run's for a while)
        for _ in range(100):
            if not answers():
                return
            time.sleep(0.1)


def rgw_start(timeout=120):
    """Starts the gateway again on the same port, as radosgw-run did, and
    waits until it answers. Returns the seconds it took."""
    import http.client
    import time
    t0 = time.monotonic()
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    with open(os.path.join(SERVER_DIR, "log", "rgw-restart.out"), "ab") as out:
        p = subprocess.Popen(["radosgw", "--conf", os.path.join(SERVER_DIR, "ceph.conf"),
                              "-n", "client.rgw", "-f"], stdout=out, stderr=out,
                             stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    with open(os.path.join(SERVER_DIR, "run", "pgids"), "a") as f:
        f.write(f"{p.pid}\n")
    with open(os.path.join(SERVER_DIR, "run", "rgw.pgid"), "w") as f:
        f.write(f"{p.pid}\n")
    while time.monotonic() - t0 < timeout:
        if p.poll() is not None:
            raise RuntimeError(f"radosgw exited with {p.returncode} on restart")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port(), timeout=5)
            c.request("GET", "/")
            if c.getresponse().status < 500:
                return time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"radosgw did not answer within {timeout} s of its restart")
