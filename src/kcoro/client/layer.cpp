// Placeholder so the client layer library is never empty.
