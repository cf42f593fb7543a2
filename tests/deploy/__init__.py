"""Deploying: nginx in front of several instances (deploy/, docs/deploy.md)."""
