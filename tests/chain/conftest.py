from tests.support.anvil import anvil_node, chain, drop  # noqa: F401  (fixtures)
