"""The sale phases of a collection as the contract stores them, allowlist files turned into Merkle roots."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mintprep.chain.allowlist_file import read_allowlist
from mintprep.chain.merkle import AllowlistTree
from mintprep.collection import PhaseSettings

if TYPE_CHECKING:
    from mintprep.collection import Collection

NO_ALLOWLIST = b"\x00" * 32


@dataclass(frozen=True)
class OnChainPhase:
    """MintprepDrop.Phase, field for field (the order of the Solidity struct)."""

    start: int
    end: int
    price: int
    max_per_wallet: int
    max_mints: int  # 0: no cap besides maxSupply
    allowlist_root: bytes

    FIELDS = ("start", "end", "price", "max_per_wallet", "max_mints", "allowlist_root")

    def as_tuple(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    @classmethod
    def from_tuple(cls, values: tuple[Any, ...] | list[Any]) -> OnChainPhase:
        return cls(*values)


@dataclass(frozen=True)
class SalePhase:
    settings: PhaseSettings
    allowlist: AllowlistTree | None

    @property
    def name(self) -> str:
        return self.settings.name

    def on_chain(self) -> OnChainPhase:
        s = self.settings
        return OnChainPhase(
            start=s.start_time,
            end=s.end_time,
            price=s.price_wei,
            max_per_wallet=s.max_per_wallet,
            max_mints=s.max_mints or 0,
            allowlist_root=self.allowlist.root if self.allowlist else NO_ALLOWLIST,
        )


def collection_phases(col: "Collection") -> list[SalePhase]:
    """chain.phases (or the single public phase) with every allowlist file read; ConfigError names a bad file."""
    phases = []
    for number, settings in enumerate(col.spec.chain.sale_phases()):
        tree = None
        if settings.allowlist:
            where = f"chain.phases.{number}.allowlist"
            tree = read_allowlist(col.base_dir / settings.allowlist, where, within=col.base_dir,
                                  cache_dir=col.state.allowlists)
        phases.append(SalePhase(settings, tree))
    return phases
