; Rggggggg)
@Addr1 = global ptr blockaddress(blockaddress(@m68k_rtdcisquared, %Case1)


de  r]t 
}
@m68k_rtdcisquared, %Case1)


de  r]t 
}


