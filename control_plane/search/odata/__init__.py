"""OData query options for search ($filter, $orderby; $top and $skip are plain integers): a real grammar
(filter.lark, parsed by lark) into typed expressions, then into the same OpenSearch filter clauses the
JSON API builds. Errors name the position and the token."""
