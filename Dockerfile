# cdp-engine's MCP server over streamable HTTP, with Debian's Chromium (docs/mcp.md, "Docker").
#
#   docker build -t cdp-engine .
#   docker run --rm -p 8931:8931 -e CDP_ENGINE_TOKEN=change-me cdp-engine
#   # the MCP endpoint is http://127.0.0.1:8931/mcp, every request with "Authorization: Bearer change-me"
#
# Every option of `cdp-engine mcp` works as a CDP_ENGINE_* variable (docs/configuration.md), e.g.
# -e CDP_ENGINE_ALLOWED_ORIGINS="https://example.com" or -e CDP_ENGINE_LOG_LEVEL=info.
FROM python:3.12-slim-bookworm

# Chromium and the fonts pages expect; nothing else.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml README.md ./
COPY protocol ./protocol
COPY cdp_engine ./cdp_engine
RUN pip install --no-cache-dir ".[mcp]" && cd / && rm -rf /src

# The container is the boundary: the server runs as root there, so the engine starts Chromium with
# --no-sandbox (Chromium cannot start its own sandbox as root, nor as another user under Docker's default
# seccomp profile without user namespaces).
WORKDIR /data
ENV CDP_ENGINE_CHROME=/usr/bin/chromium \
    CDP_ENGINE_OUTPUT_DIR=/data/output \
    PYTHONUNBUFFERED=1
EXPOSE 8931
# 0.0.0.0 inside the container, so that the published port reaches it; the bearer token is still required
# (CDP_ENGINE_TOKEN, or generated and printed once to the container's log).
ENTRYPOINT ["cdp-engine", "mcp", "--http", "--host", "0.0.0.0", "--allow-remote", "--port", "8931"]
