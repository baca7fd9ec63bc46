#!/usr/bin/env python3
"""Renders krew-manifest.yaml (krew-release-bot's template format) into a krew plugin manifest.

    scripts/render-krew.py --tag vX.Y.Z --sums SHA256SUMS [--require-all] krew-manifest.yaml > karmada-policy.yaml

`{{ .TagName }}` becomes the tag and `{{ addURIAndSha "URL" .TagName }}` becomes the uri and
sha256 lines, the digest taken from SHA256SUMS (sha256sum's format) for the archive the URL
names, as krew-release-bot computes it from the published asset. A platform whose archive is not
in SHA256SUMS is left out (scripts/release.sh builds only some), or fails with --require-all.
"""
import argparse
import re
import sys

PLATFORM = re.compile(r"^    - selector:\n(?:      .*\n|        .*\n|          .*\n)*", re.M)
ADD_URI = re.compile(r'^(?P<indent> *)\{\{ *addURIAndSha "(?P<url>[^"]+)" \.TagName *\}\}$', re.M)


def read_sums(path):
    sums = {}
    with open(path) as f:
        for line in f:
            digest, name = line.split(None, 1)
            sums[name.strip().lstrip("*")] = digest.lower()
    return sums


def render(template, tag, sums, require_all):
    missing = []

    def platform(match):
        block = match.group(0)
        found = ADD_URI.search(block)
        if not found:
            return block
        url = found.group("url").replace("{{ .TagName }}", tag)
        name = url.rsplit("/", 1)[1]
        if name not in sums:
            missing.append(name)
            return ""
        indent = found.group("indent")
        lines = f'{indent}uri: {url}\n{indent}sha256: "{sums[name]}"'
        return block[: found.start()] + lines + block[found.end() :]

    text = PLATFORM.sub(platform, template)
    if missing and require_all:
        sys.exit("render-krew: no digest for " + ", ".join(missing))
    text = text.replace("{{ .TagName }}", tag)
    if "{{" in text:
        sys.exit("render-krew: unrendered template expression left")
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("#"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", required=True)
    parser.add_argument("--sums", required=True)
    parser.add_argument("--require-all", action="store_true")
    parser.add_argument("template")
    args = parser.parse_args()
    with open(args.template) as f:
        template = f.read()
    sys.stdout.write(render(template, args.tag, read_sums(args.sums), args.require_all))


if __name__ == "__main__":
    main()
