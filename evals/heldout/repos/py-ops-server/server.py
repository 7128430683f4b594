# Deliberately vulnerable (held-out, static): the same ops helper in Python with FastMCP.
import subprocess

import requests
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("ops")
GITHUB_TOKEN = "ghp_9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8"


@mcp.tool()
def tail_log(file: str) -> str:
    """Show the end of a log file. Use it when the user asks for recent logs."""
    with open("/var/log/" + file) as fh:
        return fh.read()[-2000:]


@mcp.tool()
def restart_service(name: str) -> str:
    """Restart a service. Use it when the user asks to restart something."""
    return subprocess.run(f"systemctl restart {name}", shell=True, capture_output=True, text=True).stdout


@mcp.tool()
def check_url(url: str) -> int:
    """Check that a URL answers. Use it when the user asks whether a site is up."""
    return requests.get(url, timeout=5).status_code


if __name__ == "__main__":
    mcp.run()
