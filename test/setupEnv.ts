// n8n-core logs every node error through its own logger; tests assert errors, they need no log.
process.env.N8N_LOG_LEVEL = 'silent';
