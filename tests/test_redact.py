"""Secrets masked by value, by encoding, by fragment and by shape; ordinary text left alone."""

import base64
import json
import time

from bot.redact import Redactor

KEY = "sk-proj-Q7vX2mK9pL4rT8wZ3nB6cF1hJ5dG0sYe"  # an OpenAI-style project key
TOKEN = "ghs_R4tY8uI2oP6aS0dF3gH7jK1lZ5xC9vB2nM4q"  # a GitHub Actions token
CREDENTIALS = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()


def test_known_values_are_masked_and_short_ones_ignored():
    redact = Redactor(["hunter22", "abc", None, ""])
    assert redact("password hunter22, not abc") == "password ***, not abc"


def test_values_come_from_secret_like_variable_names():
    redact = Redactor.from_environ({"MY_API_KEY": "value-one", "DB_PASSWORD": "value-two", "HOME": "/home/runner"})
    assert redact("value-one value-two /home/runner") == "*** *** /home/runner"


def test_added_values_are_masked():
    redact = Redactor()
    redact.add("late-secret")
    assert redact("a late-secret") == "a ***"


def test_base64_forms_of_a_known_value_and_of_git_credentials():
    redact = Redactor([TOKEN])
    unpadded = base64.b64encode(TOKEN.encode()).decode().rstrip("=")
    assert redact(f"basic {CREDENTIALS}\nraw {base64.b64encode(TOKEN.encode()).decode()}\nbare {unpadded}") == (
        "basic ***\nraw ***\nbare ***"
    )


def test_github_tokens_by_shape():
    redact = Redactor()
    text = (
        "ghp_"
        + "a" * 36
        + " gho_"
        + "B1" * 18
        + " ghu_"
        + "c" * 30
        + " ghs_"
        + "d" * 40
        + " ghr_"
        + "e" * 36
        + "\ngithub_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN"
        + "\nshort: ghp_"
        + "a" * 29
        + " and github_pat_short"
    )
    assert redact(text) == "*** *** *** *** ***\n***\nshort: ghp_" + "a" * 29 + " and github_pat_short"


def test_openai_keys_by_shape_but_not_words_that_look_alike():
    redact = Redactor()
    text = (
        "key=sk-abcdefghijklmnopqrstuvwx1234 project sk-proj-AbC_dEf-123456789012345678901234\n"
        "sk-too-short; risk-assessment-for-the-whole-team; task-sk-abcdefghijklmnopqrstuvwxyz"
    )
    assert redact(text) == (
        "key=*** project ***\nsk-too-short; risk-assessment-for-the-whole-team; task-sk-abcdefghijklmnopqrstuvwxyz"
    )


def test_authorization_header_values_keep_their_scheme():
    redact = Redactor()
    text = (
        "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Zm9v\n"
        "authorization: Bearer abc.def-ghi\n"
        "Authorization:token 1234567890\n"
        '{"Authorization": "Bearer eyJhbGciOi.x.y", "next": 1}\n'
        "headers={'authorization': 'token zzz'}\n"
        "the authorization of the request"
    )
    assert redact(text) == (
        "AUTHORIZATION: basic ***\n"
        "authorization: Bearer ***\n"
        "Authorization:token ***\n"
        '{"Authorization": "Bearer ***", "next": 1}\n'
        "headers={'authorization': 'token ***'}\n"
        "the authorization of the request"
    )


def chunks(text: str, size: int, separator: str) -> str:
    return separator.join(text[i : i + size] for i in range(0, len(text), size))


def test_a_known_key_spelled_out_with_separators():
    redact = Redactor([KEY])
    run = KEY.removeprefix("sk-proj-")  # the key's letters and digits; "sk-proj-" is punctuation around them
    for separator in "- \n._":
        assert redact(f"the key: sk-proj-{chunks(run, 4, separator)} (done)") == "the key: sk-proj-*** (done)"
    assert redact(f"escaped in JSON: {chunks(run, 3, chr(92) + 'n')}") == "escaped in JSON: ***"
    assert redact(json.dumps({"output": chunks(run, 5, "\n")})) == '{"output": "***"}'


def test_a_fragment_of_eight_or_more_characters_is_masked():
    redact = Redactor([KEY])
    assert redact("it starts Q7vX2mK9 and Q7vX-2mK9-pL4r") == "it starts *** and ***"
    assert redact("seven: Q7vX2mK, two separators: Q7vX--2mK9pL4r") == "seven: Q7vX2mK, two separators: Q7vX--***"


def test_ordinary_text_around_a_secret_word_is_left_alone():
    redact = Redactor(["sk-planted-4f0c8e2a9b1d4c6e8f0a2b4c6d8e0f1a", "ghp_planted7e9d1c3b5a7f9e1d3c5b7a9f1e3d5c7b"])
    text = "the bulbs were planted fast, planted early; plantedness. Seven: 4f0c 8e2, out of order: 8f0a-4c6e"
    assert redact(text) == text
    assert redact("leaked 4f0c-8e2a-9b1d") == "leaked ***"


def test_two_hundred_kilobytes_with_three_secrets_redact_quickly():
    secrets = [KEY, TOKEN, "correct-horse-battery-staple-2024"]
    redact = Redactor(secrets)
    prose = "assert unique_items([3, 1, 3]) == [3, 1], 'order'\nE   AssertionError: expected [3, 1], got [1, 3]\n"
    text = (prose * (200_000 // len(prose)))[:200_000]
    leaky = text[:100_000] + chunks(KEY, 4, "-") + text[100_000:]
    seconds = min(timed(redact, leaky) for _ in range(3))
    assert redact(leaky).count("***") == 1
    assert seconds < 0.25  # about 10 ms clean and 25 ms with a leak on the 2-core development machine


def timed(redact: Redactor, text: str) -> float:
    started = time.perf_counter()
    redact(text)
    return time.perf_counter() - started


# A service account's key file as google-github-actions/auth leaves it in the workspace (made up).
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3S"
PEM = f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----\n"
SERVICE_ACCOUNT = {
    "type": "service_account",
    "project_id": "demo-project",
    "private_key_id": "3f2a9c0e1b7d4a6f8e5c2b1a0d9e8f7c6b5a4d3e",
    "private_key": PEM,
    "client_email": "deployer@demo-project.iam.gserviceaccount.com",
    "client_id": "104857600123456789012",
}
MASKED_ACCOUNT = """{
  "type": "service_account",
  "project_id": "demo-project",
  "private_key_id": "***",
  "private_key": "***\\n",
  "client_email": "***",
  "client_id": "104857600123456789012"
}"""


def test_a_service_account_file_is_masked_as_json_and_as_repr():
    redact = Redactor()
    text = json.dumps(SERVICE_ACCOUNT, indent=2)
    assert redact(text) == MASKED_ACCOUNT
    assert redact(f"E   AssertionError: {text!r}") == f"E   AssertionError: {MASKED_ACCOUNT!r}"


def test_private_keys_whole_or_cut_at_either_end():
    redact = Redactor()
    assert redact(f"key:\n{PEM}after") == "key:\n***\nafter"
    assert redact(f"key: {PEM!r}") == "key: '***\\n'"
    head_only = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY[:40]}\n[... 100 characters cut ...]"
    assert redact(head_only) == "***\n[... 100 characters cut ...]"
    tail_only = f"[... 9 characters cut ...]\n{PEM_BODY[9:]}\n-----END OPENSSH PRIVATE KEY-----\nafter"
    assert redact(tail_only) == "[... 9 characters cut ...]\n***\nafter"
    encrypted = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIFHzBJBgkqhkiG9w0BBQ0w\n"
    assert redact(encrypted) == "***\n"


def test_cloud_credentials_by_name_and_shape():
    redact = Redactor()
    text = (
        "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\naws_session_token=IQoJb3JpZ2luX2VjEJr//wEa\n"
        'AWS_SECRET_ACCESS_KEY=abc/def+ghi {"SecretAccessKey": "xyz123"} '
        "AccountName=a;AccountKey=Zm9vYmFy==;EndpointSuffix=core.windows.net\n"
        '{"client_secret": "GOCSPX-abc", "refresh_token": "1//0gXyz"} key=AIzaSyA1234567890abcdefghijklmnopqrstuv\n'
        "the private key of the session, a secret access key: none"
    )
    assert redact(text) == (
        "[default]\naws_access_key_id = ***\naws_secret_access_key = ***\naws_session_token=***\n"
        'AWS_SECRET_ACCESS_KEY=*** {"SecretAccessKey": "***"} '
        "AccountName=a;AccountKey=***;EndpointSuffix=core.windows.net\n"
        '{"client_secret": "***", "refresh_token": "***"} key=***\n'
        "the private key of the session, a secret access key: none"
    )


def test_a_long_base64_line_with_no_key_costs_little():
    redact = Redactor()
    text = ("A" * 50_000 + " ") * 4 + "no PRIVATE KEY here"
    assert redact(text) == text
    assert min(timed(redact, text) for _ in range(3)) < 0.1  # about 20 ms on the 2-core development machine
