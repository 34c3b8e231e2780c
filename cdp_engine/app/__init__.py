"""The application around the engine: the option table (one name per option on the command line, in the
environment and in a TOML file) and the command process (its socket, logs and run) the servers and the CLI share."""
