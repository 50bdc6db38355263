"""The protocol framework: what a protocol declares (`spec`), how its arguments become a prepared debate
(`prepared`, `panel`), how it runs (`runs`), its demo and its debate's effect."""
