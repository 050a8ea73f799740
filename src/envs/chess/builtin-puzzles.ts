/**
 * The built-in chess suite: 30 Lichess puzzles (CC0; https://database.lichess.org/#puzzles) copied from
 * the project's sample (`data/chess/lichess_puzzles_sample.csv`): 12 rated < 600, 10 rated 600-999,
 * 5 rated 1000-1499 and 3 rated >= 1500. `test/fixtures/chess/puzzles.csv` holds the same text.
 */
export const BUILTIN_PUZZLES_CSV = `PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl
LQZKc,2r4k/4R1pp/p1N2p2/1p1N4/1P1P4/1Q6/1P3PPP/6K1 w - - 2 26,c6a5 c8c1 b3d1 c1d1 e7e1 d1e1,399,108,95,813,backRankMate endgame long mate mateIn3,https://lichess.org/sF9lYE7q#51
nhaRp,3rk1nr/5ppp/p1p3q1/3pP3/P1P5/5P2/2PQ2PP/RN1R2K1 b k - 0 18,d5c4 d2d8,399,101,100,189,mate mateIn1 middlegame oneMove,https://lichess.org/pNt50UrV/black#36
0Ritn,6k1/5pp1/3R4/b4p2/p1N5/P4PPp/4P2P/1r5K w - - 5 38,d6d1 b1d1,411,104,78,389,endgame hangingPiece master mate mateIn1 oneMove,https://lichess.org/AHzyPnwq#75
iBubI,4r3/4qp1k/2R3pp/8/2P2P2/pPQB3P/P1P3P1/1K6 w - - 0 33,f4f5 e7e1 c3e1 e8e1,439,92,75,258,endgame mate mateIn2 queensideAttack short,https://lichess.org/RDZD0dgr#65
1kjX1,r3r1k1/1p3pbp/p5p1/P4bN1/1B6/1Pp1R3/5PPP/4R1K1 b - - 3 25,c3c2 e3e8 a8e8 e1e8,463,93,85,160,crushing kingsideAttack middlegame short,https://lichess.org/nvvMfWL6/black#50
9VwsR,rn2kbnr/pp3pp1/2p1p3/3pPqBp/2P4P/5N2/PP3PP1/RN1Q1RK1 b kq - 1 10,d5c4 d1d8,481,106,96,607,master masterVsMaster mate mateIn1 middlegame oneMove,https://lichess.org/bTsInJPu/black#20
u1bIg,1q2n2k/pp5p/3r1r2/1P2Qp2/P3p3/1B4P1/5PP1/R2R2K1 w - - 0 36,b3f7 d6d1 a1d1 b8e5,500,93,91,194,crushing discoveredAttack master masterVsMaster middlegame short,https://lichess.org/lJwSqUdZ#71
KK9vM,5r1k/5qpp/4p3/3p2PP/2b5/4Q3/1p4K1/1B2R3 b - - 0 42,f7f2 e3f2 f8f2 g2f2,529,84,100,216,crushing endgame master short,https://lichess.org/7KHXwIQ0/black#84
RQ5UP,8/8/8/6p1/1PK5/7k/8/8 b - - 0 60,h3h2 b4b5 g5g4 b5b6 g4g3 b6b7 g3g2 b7b8q,551,93,94,139,advancedPawn crushing endgame pawnEndgame promotion quietMove veryLong,https://lichess.org/4HOGDz78/black#120
5xZC5,1r1q2k1/1b3ppp/1p1prn2/p1p1P3/8/P1B2PP1/1PPQ2BP/3RR1K1 b - - 0 21,d6e5 d2d8 b8d8 d1d8,567,101,79,213,crushing kingsideAttack middlegame short,https://lichess.org/v8U3oypi/black#42
SWeCU,6k1/1b3pp1/p1q5/3n3p/1Bp2Q2/7r/PP4P1/1B1R2K1 b - - 1 31,d5f4 d1d8 c6e8 d8e8,582,91,82,437,master masterVsMaster mate mateIn2 middlegame short,https://lichess.org/4QYvkc4K/black#62
mWN6L,1r6/Q3Rpk1/6p1/3p3p/8/Pq1N1P2/1P5P/K1r5 w - - 4 32,d3c1 b3b2,594,92,89,600,endgame master mate mateIn1 oneMove,https://lichess.org/WY3UPJ4X#63
zZcc5,5rk1/pp4p1/2nb3p/7P/3Pp3/2P5/PP1BQ1P1/3RNq1K w - - 0 28,e2f1 f8f1,631,85,76,61,kingsideAttack mate mateIn1 middlegame oneMove,https://lichess.org/TTgM7nNz#55
7eP4S,8/8/4k3/4p2p/4P3/6p1/3BKb2/8 b - - 1 82,g3g2 e2f2 g2g1r f2g1,675,93,96,1925,bishopEndgame crushing endgame hangingPiece master short,https://lichess.org/n95te6IU/black#164
2VZxz,8/2kbr3/p1n2q1p/1pQ3p1/8/BP3B2/P1P2PPP/4R1K1 w - - 0 26,e1e7 f6a1 a3c1 a1c1 f3d1 c1d1 e7e1 d1e1,714,103,87,1026,mate mateIn4 middlegame veryLong,https://lichess.org/NjWIvN9s#51
0NwV7,r1bq3k/3p1QNp/p1p1p1p1/7n/8/PB6/2P3PP/5R1K b - - 0 25,h5g7 f7f8 d8f8 f1f8,757,77,100,496,backRankMate mate mateIn2 middlegame short,https://lichess.org/y6Ct5Rre/black#50
uE2a2,8/R7/8/8/4r3/3K1k2/8/8 b - - 11 71,f3f4 a7f7 f4e5 f7e7 e5d6 e7e4,797,88,85,292,crushing deflection endgame long master rookEndgame skewer,https://lichess.org/D4aNFsuF/black#142
bFLIa,8/8/2p2N2/pp3Ppp/1n1P4/1PK4k/8/8 b - - 0 42,b4d5 f6d5 c6d5 f5f6,845,87,96,549,crushing endgame knightEndgame short,https://lichess.org/pOcXnDNL/black#84
h94Kk,r3r1Qk/1pqn2bp/p1n4N/P1p5/5p2/2PPBBP1/5P1P/RR4K1 b - - 6 24,e8g8 h6f7,879,76,100,301,mate mateIn1 middlegame oneMove smotheredMate,https://lichess.org/py1v9hMT/black#48
MVzJZ,8/4pk2/7R/4Pr1p/8/2P5/PP3P2/1K6 w - - 0 33,e5e6 f7g7 h6h5 f5h5,913,77,100,305,advantage defensiveMove endgame rookEndgame short trappedPiece,https://lichess.org/rjwWnLCR#65
jF0ar,rr4k1/6pp/3p4/2P2p2/2PB1P2/p6P/Rb3KP1/3R4 w - - 0 34,c5d6 b2d4 d1d4 b8b2 d4d2 b2d2 a2d2 a3a2 d6d7 a2a1q,952,76,91,310,advancedPawn advantage clearance endgame promotion veryLong,https://lichess.org/8TOmdwVd#67
hzrpk,5k2/6p1/p1p1pb1p/1p6/1PpPP1PP/P1B4K/8/8 b - - 0 30,f8e7 e4e5 f6h4 h3h4,981,76,97,2775,advantage bishopEndgame endgame short trappedPiece,https://lichess.org/o2pNddah/black#60
sMx5y,2r1kb1r/1b4pp/p1n1ppN1/1pp5/4BP2/4B3/PPPR2PP/2K4R b k - 1 16,h7g6 e4g6 e8e7 e3c5,1047,79,91,428,interference mate mateIn2 middlegame short,https://lichess.org/kvKQkEzr/black#32
PAJgS,r6r/ppkb1ppp/2n2n2/1N6/5P2/P7/2PQ2PP/q1B1KB1R b K - 6 18,c7b8 d2d6 b8c8 d6c7,1161,79,91,413,mate mateIn2 middlegame queensideAttack short,https://lichess.org/Jbprxvm3/black#36
lfJFe,3r1r1k/p2q1nnp/1pp2p1b/5p1Q/2PPpP2/1N2P1NP/P5PB/2R2R1K w - - 6 27,h5h4 h6g5 f4g5 f6g5 h4h5 g7h5,1251,76,77,69,advantage long middlegame sacrifice trappedPiece,https://lichess.org/x3oQe1hT#53
U1U0E,3r4/p7/4k3/2b3p1/6P1/1PB2R2/1P2Kp2/8 b - - 4 38,e6d5 f3d3 d5e4 d3d8,1361,76,78,382,crushing endgame master masterVsMaster short skewer superGM,https://lichess.org/GzHReReN/black#76
0UmjN,r7/p4pPk/1p2pP2/3pP3/8/3R4/2n4P/6K1 b - - 1 34,d5d4 d3h3 h7g6 h3h8 a8h8 g7h8q,1452,75,96,5563,advancedPawn crushing endgame long promotion,https://lichess.org/zTGuF99q/black#68
ZQLEj,8/2k4p/6p1/1K1n1p2/p3p3/P3B3/1P3PPP/8 w - - 3 31,b5a4 d5e3 f2e3 f5f4 e3f4 e4e3 a4b3 e3e2,1725,75,93,1171,advancedPawn advantage endgame master masterVsMaster veryLong,https://lichess.org/9v0ZNIkz#61
yGN6P,8/1R6/8/6P1/8/1Nk5/p4K2/1r6 w - - 6 54,g5g6 a2a1q b3a1 b1b7,2168,78,91,982,advancedPawn crushing endgame promotion short,https://lichess.org/fv1V5Na8#107
oltoH,8/1pk5/p1p2p2/1PPpb1p1/P2q2B1/3n1P2/3Q3R/7K b - - 0 41,e5h2 d2a5 c7b8 a5d8 b8a7 b5b6,2643,86,83,353,endgame long mate mateIn3,https://lichess.org/37bOWiUW/black#82
`;
