/* CS2 item definition indexes (m_iItemDefinitionIndex of a weapon or
 * item) and the names the game shows for them: what demoparser2's
 * active_weapon_name and inventory give. Game data (the item schema's
 * display names), kept as a sorted table. */
#include "source2_items.h"

#include <stddef.h>

static const struct s2_item {
    uint16_t def;
    const char *name;
} s2_items[] = {
    {1, "Desert Eagle"}, {2, "Dual Berettas"}, {3, "Five-SeveN"}, {4, "Glock-18"},
    {7, "AK-47"}, {8, "AUG"}, {9, "AWP"}, {10, "FAMAS"}, {11, "G3SG1"}, {13, "Galil AR"},
    {14, "M249"}, {16, "M4A4"}, {17, "MAC-10"}, {19, "P90"}, {23, "MP5-SD"}, {24, "UMP-45"},
    {25, "XM1014"}, {26, "PP-Bizon"}, {27, "MAG-7"}, {28, "Negev"}, {29, "Sawed-Off"},
    {30, "Tec-9"}, {31, "Zeus x27"}, {32, "P2000"}, {33, "MP7"}, {34, "MP9"}, {35, "Nova"},
    {36, "P250"}, {38, "SCAR-20"}, {39, "SG 553"}, {40, "SSG 08"}, {41, "Knife"},
    {42, "knife"}, {43, "Flashbang"}, {44, "High Explosive Grenade"}, {45, "Smoke Grenade"},
    {46, "Molotov"}, {47, "Decoy Grenade"}, {48, "Incendiary Grenade"}, {49, "C4 Explosive"},
    {50, "Kevlar Vest"}, {51, "Kevlar & Helmet"}, {52, "Heavy Assault Suit"}, {54, "item_nvg"},
    {55, "Defuse Kit"}, {56, "Rescue Kit"}, {57, "Medi-Shot"}, {59, "knife_t"}, {60, "M4A1-S"},
    {61, "USP-S"}, {62, "Trade Up Contract"}, {63, "CZ75-Auto"}, {64, "R8 Revolver"},
    {65, "Charm Detachments"},
    {500, "Bayonet"}, {503, "Classic Knife"}, {505, "Flip Knife"}, {506, "Gut Knife"},
    {507, "Karambit"}, {508, "M9 Bayonet"}, {509, "Huntsman Knife"}, {512, "Falchion Knife"},
    {514, "Bowie Knife"}, {515, "Butterfly Knife"}, {516, "Shadow Daggers"},
    {517, "Paracord Knife"}, {518, "Survival Knife"}, {519, "Ursus Knife"},
    {520, "Navaja Knife"}, {521, "Nomad Knife"}, {522, "Stiletto Knife"}, {523, "Talon Knife"},
    {525, "Skeleton Knife"}, {526, "Kukri Knife"},
};

const char *zdem_s2_item_name(uint64_t def)
{
    size_t lo = 0, hi = sizeof s2_items / sizeof s2_items[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2u;
        if (s2_items[mid].def < def)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo < sizeof s2_items / sizeof s2_items[0] && s2_items[lo].def == def ? s2_items[lo].name : NULL;
}
