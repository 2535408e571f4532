"""MIRAI-style relational forecasting queries from GDELT: CAMEO codes, balanced test splits, scoring."""
