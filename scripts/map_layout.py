"""Hand-tuned layout hints for scripts/build_map.py (not game data).

The game data (app/content/data/areas.json, seas.json, barriers.json) gives one centre per
area and sea. A plain Voronoi diagram of those centres cuts some historical regions badly
(Thrace would take Asia across the Bosporus, Britain's west would go to Armorica), so the
builder also reads, from here:

- ``AUX_SEEDS``: extra Voronoi seeds ``(lon, lat)`` that belong to an area, to pull its
  border outwards (a long area such as Numidia-Mauretania gets several seeds);
- ``SEA_AUX_SEEDS``: the same for sea zones;
- ``ISLANDS``: who owns an island that holds no seed (``None`` = nobody, drawn as
  unclaimed land); any island not listed goes to the nearest area within
  ``ISLAND_REACH`` degrees, or to nobody;
- ``OFF_MAP_SEA_LINKS``: sea zones adjacent through water beyond the frame;
- ``TERRA_INCOGNITA``: land inside the frame that no area covers (the northern forests,
  Africa south of the Sahara, South-East Asia beyond Jiaozhi, Japan …).

All coordinates are ``(lon, lat)`` in degrees.
"""

from __future__ import annotations

# the frame of the map: lon -12..132, lat 2..58
WEST, EAST, SOUTH, NORTH = -12.0, 132.0, 2.0, 58.0

AUX_SEEDS: dict[str, list[tuple[float, float]]] = {
    "gallaecia": [(-8.42, 41.55), (-1.64, 42.82)],
    "lusitania": [(-9.14, 38.72)],
    "celtiberia": [(-2.47, 41.80)],
    "tarraconensis": [(1.25, 41.12)],
    "numidia": [(2.19, 36.60), (-5.55, 34.07), (-5.80, 35.77)],
    "africa": [(14.29, 32.64), (10.0, 34.5)],
    "raetia_noricum": [(8.2, 47.3), (14.37, 46.7)],
    "narbonensis": [(5.9, 45.6)],
    "belgica": [(2.3, 49.89)],
    "cisalpina": [(13.37, 45.77), (12.57, 44.06)],
    "magna_graecia": [(15.5, 40.4)],
    "latium": [(14.25, 40.9)],
    "bohemia": [(16.6, 49.2), (18.5, 48.7)],
    "britannia": [(-2.0, 53.9), (-4.0, 56.5), (-4.0, 51.0)],
    "samnium": [(13.57, 42.85), (17.0, 40.8)],
    "macedonia": [(20.79, 39.55), (19.45, 41.31)],
    "moesia": [(28.65, 44.17), (21.9, 43.32)],
    "thracia": [(28.6, 41.1), (27.7, 42.42)],
    "bithynia": [(29.1, 40.9), (34.0, 41.45)],
    "galatia": [(30.5, 39.0)],
    "cappadocia": [(38.5, 37.52)],
    "armenia": [(41.0, 38.14)],
    "maeotis": [(43.06, 44.05), (44.4, 43.4), (39.3, 47.2)],
    "atropatene": [(49.6, 37.3), (50.6, 36.9)],
    "adiabene": [(45.4, 35.55), (43.15, 36.36)],
    "nabataea": [(36.48, 32.52)],
    "persis": [(51.67, 32.65)],
    "media": [(51.0, 35.4)],
    "punjab": [(71.47, 30.2), (70.9, 31.8)],
    "gandhara": [(71.2, 33.1)],
    "judaea": [(35.2, 32.5)],
    "pontus": [(39.72, 40.9)],
    "osroene": [(41.22, 37.07)],
    "mongolia": [(90.0, 47.5)],
    "wusun": [(85.0, 45.5)],
    "paropamisadae": [(68.42, 33.55)],
    "arabia_deserta": [(48.72, 26.87), (44.5, 25.5), (39.6, 24.5)],
    "characene": [(47.8, 30.5)],
    "arachosia": [(61.86, 30.96)],
    "parthia": [(58.2, 37.95), (52.3, 36.5)],
    "avanti": [(78.7, 20.8), (82.18, 21.34)],
    "saurashtra": [(72.98, 21.7), (69.67, 23.25)],
    "kucha": [(89.19, 42.95), (93.5, 42.8), (80.26, 41.17)],
    "shanshan": [(82.7, 37.4)],
    "xianbei": [(126.55, 43.85)],
    "ba_shu": [(107.03, 33.07), (106.55, 29.56)],
    "chu": [(112.97, 28.2), (115.9, 28.7), (109.7, 28.3)],
    "xu_huai": [(116.78, 32.58)],
    "wu_kuaiji": [(120.58, 30.0)],
    "dian": [(106.7, 26.6)],
    "nanyue": [(119.3, 26.07), (110.3, 25.3)],
    "joseon": [(128.6, 35.8), (127.0, 36.5)],
    "yan_zhao": [(114.47, 36.6), (120.0, 40.8)],
    "zhongyuan": [(115.3, 35.5)],
    "guanzhong": [(105.72, 34.58)],
    "hexi": [(102.64, 37.93)],
    "germania_magna": [(18.0, 52.5), (10.0, 54.5)],
    "sarmatia": [(51.4, 51.2), (46.8, 44.0), (39.5, 49.5)],
    "scythia": [(33.5, 47.5)],
    "taurica": [(33.5, 44.6)],
}

SEA_AUX_SEEDS: dict[str, list[tuple[float, float]]] = {
    "ATL": [(-11.0, 36.0), (-7.0, 48.5)],
    "NSC": [(-1.0, 50.3)],
    "TYR": [(8.6, 43.6), (13.5, 38.7)],
    "ARE": [(74.0, 10.5)],
    "LIB": [(16.5, 32.8)],
    "ION": [(16.6, 37.2)],
    "EMD": [(28.5, 33.0)],
    "ARW": [(49.0, 13.0), (58.5, 24.5)],
    "BOB": [(91.0, 20.5), (84.0, 9.0)],
    "ECS": [(128.0, 32.5)],
    "SCS": [(107.5, 20.0)],
    "YEL": [(120.0, 39.0)],
}

ISLANDS: list[tuple[float, float, str | None]] = [
    (-8.0, 53.3, None),  # Hibernia: off the map's areas
    (3.0, 39.6, "contestania"),  # Mallorca
    (1.4, 38.95, "contestania"),  # Ibiza
    (4.1, 39.95, "contestania"),  # Menorca
    (9.1, 42.15, "sardinia"),  # Corsica
    (25.4, 37.1, "crete"),  # Naxos
    (25.1, 36.4, "crete"),  # Thera
    (24.9, 37.45, "crete"),  # Syros
    (25.35, 37.45, "crete"),  # Mykonos
    (24.45, 37.05, "crete"),  # Melos region
    (14.4, 35.9, "sicilia"),  # Melita
    (14.6, 45.2, "dalmatia"),  # Curicta (Krk)
    (14.4, 44.8, "dalmatia"),  # Crexa (Cres)
    (13.9, 56.0, None),  # Scandza
    (18.5, 57.4, None),  # Gotland
    (120.9, 23.7, None),  # Formosa
    (130.7, 32.8, None),  # Kyushu
]
ISLAND_REACH = 1.2

OFF_MAP_SEA_LINKS: dict[tuple[str, str], str] = {
    ("AND", "SCS"): "Strait of Malacca (south of the frame)",
}

TERRA_INCOGNITA: list[list[tuple[float, float]]] = [
    # northern forests and Siberia
    [
        (20.5, 54.4),
        (23.5, 53.0),
        (27.0, 52.0),
        (32.0, 52.0),
        (37.0, 52.5),
        (42.0, 53.0),
        (50.0, 53.3),
        (60.0, 53.3),
        (70.0, 51.5),
        (80.0, 50.5),
        (90.0, 50.5),
        (95.0, 51.5),
        (100.0, 52.8),
        (110.0, 51.5),
        (120.0, 50.5),
        (126.0, 48.0),
        (128.5, 45.0),
        (131.0, 44.0),
        (133.0, 44.0),
        (133.0, 59.0),
        (20.5, 59.0),
    ],
    # Primorye and Japan
    [(129.9, 42.8), (131.5, 43.3), (133.0, 44.0), (133.0, 30.0), (129.3, 30.0), (129.6, 34.0)],
    # Africa south of the Sahara and Egypt
    [
        (25.0, 21.8),
        (40.0, 21.8),
        (44.0, 12.6),
        (53.0, 12.0),
        (53.0, 0.0),
        (-13.0, 0.0),
        (-13.0, 12.0),
        (20.0, 12.0),
    ],
    # South-East Asia beyond Bengal, Dian and Jiaozhi
    [
        (91.3, 26.0),
        (93.0, 27.3),
        (96.5, 28.4),
        (98.5, 27.5),
        (98.5, 25.0),
        (99.5, 23.0),
        (101.5, 21.8),
        (103.0, 22.3),
        (104.0, 21.8),
        (104.5, 19.5),
        (106.0, 17.5),
        (107.5, 16.3),
        (108.5, 15.8),
        (111.0, 15.0),
        (111.0, 0.0),
        (90.0, 0.0),
        (90.0, 19.0),
        (91.5, 22.3),
        (92.2, 24.0),
        (91.3, 25.2),
    ],
    # the Philippines and Borneo
    [(116.0, 0.0), (133.0, 0.0), (133.0, 21.0), (116.0, 21.0)],
]
