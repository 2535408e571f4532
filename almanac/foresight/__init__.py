"""OpenForesight-style free-form forecasting questions from news articles."""
