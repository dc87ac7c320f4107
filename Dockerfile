FROM python:3.11-slim-bookworm

# bubblewrap gives the strongest sandbox tier where the runner allows user namespaces; git pushes the fix.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap=0.8.0-2+deb12u1 git=1:2.39.5-0+deb12u2 \
 && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md /opt/autofix/
COPY bot /opt/autofix/bot
RUN pip install --no-cache-dir /opt/autofix

ENTRYPOINT ["/usr/local/bin/autofix"]
